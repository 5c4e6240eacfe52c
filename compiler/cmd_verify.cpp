// mxc verify MODEL.onnx --target cpu|hip [--fp16] [--per-instruction]: runs the target and the
// reference evaluator (float32, on the program as imported: without the passes, so that a pass
// that changes the results fails too) on the same inputs and reports, per output, the normalised RMS
// error ||a-b||_2 / (sqrt(n) * max|b|) against the tolerance (1e-3; 1e-2 with --fp16, the
// criterion of issue 6). --fp16 --target ref runs the half-precision program on the reference
// evaluator. Values that are inf or NaN where the reference is finite (f16 overflow) fail
// loudly, with their count. With --per-instruction, also the first instruction whose output
// diverges from the reference running the same optimised program (with --fp16: the same f16
// program). Exits 1 on failure.
#include "compiler/commands.hpp"
#include "compiler/compare_values.hpp"
#include "compiler/session.hpp"
#include "compiler/tool_cli.hpp"
#include "ir/error.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

namespace mxc::cli {

void add_verify(CLI::App& app) {
    auto a = std::make_shared<model_args>();
    auto per_instruction = std::make_shared<bool>(false);
    auto inputs = std::make_shared<std::vector<std::string>>();
    auto tolerance = std::make_shared<double>(-1); // -1: the default for the precision
    auto* sub = app.add_subcommand("verify", "Run a target and the reference (the model as imported, without the passes) on the same inputs and compare (normalised RMS)");
    add_model_options(sub, *a, true, true);
    sub->add_option("--input", *inputs, "NAME:VALUE as for mxc run (default: random, fixed seed)");
    sub->add_option("--tolerance", *tolerance, "the largest normalised RMS error that passes (default 1e-3, 1e-2 with --fp16)")
        ->check(CLI::NonNegativeNumber);
    sub->add_flag("--per-instruction", *per_instruction, "also find the first instruction whose output diverges");
    sub->callback([a, per_instruction, inputs, tolerance] {
        if (is_library_path(a->model)) throw error("verify needs the model (.onnx) to run the reference on, not " + a->model);
        if (a->target.empty()) a->target = "cpu";
        if (a->target == "ref" && !a->fp16)
            throw error("verify: --target ref is the reference itself; use cpu or hip (or ref with --fp16)");
        double tol = *tolerance >= 0 ? *tolerance : a->fp16 ? 1e-2 : 1e-3;
        session_options o = session_opts(*a);
        o.debug_trace = *per_instruction;
        auto target = open_session(a->model, o);
        o.target = "ref";
        o.threads = -1;
        o.fp16 = false;
        o.quiet = true;
        o.optimise = false;
        auto ref = open_session(a->model, o);
        auto in = make_inputs(*target, *inputs, a->quiet);
        target->prepare(in);
        ref->prepare(in);
        target->execute();
        ref->execute();
        auto x = target->results(), y = ref->results();
        bool ok = true;
        for (std::size_t i = 0; i < x.size(); ++i) {
            value_diff d = diff_values(x[i], y[i], 0, 0);
            int64_t overflow = 0;
            if (is_floating(x[i].s.type)) {
                auto xv = x[i].to_doubles(), yv = y[i].to_doubles();
                for (std::size_t e = 0; e < xv.size() && e < yv.size(); ++e)
                    overflow += !std::isfinite(xv[e]) && std::isfinite(yv[e]);
            }
            bool pass = d.nrms <= tol && overflow == 0; // a NaN nrms fails too
            ok &= pass;
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.3e (tolerance %.0e)", d.nrms, tol);
            std::cout << "output '" << target->outputs[i].name << "' " << to_string(x[i].s) << ": " << target->target
                      << " vs ref: nrms " << buf << ", max |a-b| " << d.max_abs << ": " << (pass ? "PASS" : "FAIL") << "\n";
            if (overflow)
                std::cout << "output '" << target->outputs[i].name << "': " << overflow
                          << " values are inf or NaN where the reference is finite"
                          << (a->fp16 ? " (they overflow float16: the model's values exceed 65504)" : "") << "\n";
        }
        if (*per_instruction) {
            // The reference evaluator running the target's program (same names; with --fp16
            // the half-precision program, same types).
            o.optimise = true;
            o.fp16 = a->fp16;
            ref = open_session(a->model, o);
            ref->prepare(in);
            std::map<std::string, literal> ref_values;
            ref->execute_observed([&](std::size_t i, const literal& v) { ref_values[ref->kernels[i].name] = v; });
            std::string first;
            std::size_t checked = 0;
            target->execute_observed([&](std::size_t i, const literal& v) {
                auto it = ref_values.find(target->kernels[i].name);
                if (!first.empty() || it == ref_values.end() || it->second.s.lens != v.s.lens) return;
                checked++;
                value_diff d = diff_values(v, it->second, 0, 0);
                if (d.nrms > tol) {
                    char buf[64];
                    std::snprintf(buf, sizeof buf, "%.3e", d.nrms);
                    first = "first diverging instruction: " + target->kernels[i].text + ": nrms " + buf +
                            ", max |a-b| " + std::to_string(d.max_abs) + " at element " + std::to_string(d.where);
                }
            });
            std::cout << (first.empty() ? "every instruction agrees (" + std::to_string(checked) + " compared)" : first) << "\n";
        }
        std::cout << (ok ? "PASS" : "FAIL") << "\n";
        if (!ok) throw CLI::RuntimeError(1);
    });
}

} // namespace mxc::cli
