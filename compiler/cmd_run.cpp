// mxc run LIB.so|MODEL.onnx [--target ref|cpu|hip] --input NAME:VALUE ... [--output-dir DIR]
//   [--iter N] [--warmup N] [--io-dump DIR [--io-dump-format text|binary]] [--profile FILE.json]
// Runs a model on given (or seeded random) inputs and writes the outputs as .npy.
#include "compiler/commands.hpp"
#include "compiler/session.hpp"
#include "compiler/tensor_io.hpp"
#include "compiler/tool_cli.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace fs = std::filesystem;

namespace mxc::cli {

namespace {
struct run_args : model_args {
    std::vector<std::string> inputs;
    std::string output_dir = ".", io_dump, io_dump_format = "binary", profile;
    int iter = 1, warmup = 0;
};

std::string file_name(const std::string& s) {
    std::string r = s;
    for (auto& c : r)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
    return r;
}

void make_dir(const std::string& dir, const char* flag) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir)) throw error(std::string(flag) + ": cannot create directory '" + dir + "'");
}
} // namespace

// Writes every kernel's output of one run into `dir`, with index.tsv listing them in order.
void io_dump(session& s, const std::string& dir, bool text) {
    if (!s.can_observe)
        throw error("--io-dump: this library cannot show intermediate values: build it with `mxc MODEL.onnx --debug-trace -o LIB.so`");
    make_dir(dir, "--io-dump");
    std::string index = "# kernel\tname\top\tfile\n";
    std::string failure;
    s.execute_observed([&](std::size_t i, const literal& v) {
        if (!failure.empty()) return;
        auto& k = s.kernels[i];
        char num[16];
        std::snprintf(num, sizeof num, "%04zu", i);
        std::string file = std::string(num) + "_" + file_name(k.op) + (text ? ".txt" : ".npy");
        try {
            if (text) {
                std::ofstream f(dir + "/" + file, std::ios::binary | std::ios::trunc);
                f << tensor_text(v);
                if (!f) throw error("cannot write " + dir + "/" + file);
            } else {
                write_npy(dir + "/" + file, v);
            }
        } catch (const error& e) {
            failure = e.what();
        }
        index += std::to_string(i) + "\t" + k.name + "\t" + k.op + "\t" + file + "\n";
    });
    if (!failure.empty()) throw error("--io-dump: " + failure);
    std::ofstream f(dir + "/index.tsv", std::ios::binary | std::ios::trunc);
    f << "# target " << s.target << "\n" << index;
    if (!f) throw error("--io-dump: cannot write " + dir + "/index.tsv");
}

void add_run(CLI::App& app) {
    auto a = std::make_shared<run_args>();
    auto* sub = app.add_subcommand("run", "Run a model or library on inputs (.npy, .pb, .json or inline) and write the outputs as .npy");
    add_model_options(sub, *a, true, true);
    sub->add_option("--input", a->inputs, "NAME:VALUE, VALUE a .npy, .pb (TensorProto) or .json file or an inline "
                                          "array like [[1,2],[3,4]]; missing inputs are random (fixed seed)");
    sub->add_option("--output-dir", a->output_dir, "where to write <output>.npy (default: .)");
    sub->add_option("--iter", a->iter, "run N times and report the time (default 1)");
    sub->add_option("--warmup", a->warmup, "untimed runs before (default 0)");
    sub->add_option("--io-dump", a->io_dump, "write every instruction's output into DIR (with index.tsv)");
    sub->add_option("--io-dump-format", a->io_dump_format, "binary (.npy, default) or text");
    sub->add_option("--profile", a->profile, "write a Chrome trace-event file of per-kernel times (Perfetto)");
    sub->callback([a] {
        if (a->iter < 1) throw error("--iter must be at least 1");
        if (a->warmup < 0) throw error("--warmup must not be negative");
        if (a->io_dump_format != "binary" && a->io_dump_format != "text")
            throw error("--io-dump-format must be binary or text, got '" + a->io_dump_format + "'");
        session_options o = session_opts(*a);
        o.debug_trace = !a->io_dump.empty();
        o.profile = !a->profile.empty();
        auto s = open_session(a->model, o);
        auto inputs = make_inputs(*s, a->inputs, a->quiet);
        s->prepare(inputs);
        make_dir(a->output_dir, "--output-dir");
        for (int i = 0; i < a->warmup; ++i) s->execute();
        std::vector<double> ms;
        for (int i = 0; i < a->iter; ++i) {
            auto t = std::chrono::steady_clock::now();
            s->execute();
            ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
        }
        auto outs = s->results();
        for (std::size_t i = 0; i < outs.size(); ++i) {
            std::string path = a->output_dir + "/" + file_name(s->outputs[i].name) + ".npy";
            write_npy(path, outs[i]);
            if (!a->quiet) std::cerr << "mxc: wrote " << path << " (" << to_string(outs[i].s) << ")\n";
        }
        if (!a->quiet && a->iter > 1) {
            std::sort(ms.begin(), ms.end());
            double mean = 0;
            for (double v : ms) mean += v / ms.size();
            std::cerr << "mxc: " << a->iter << " runs on " << s->target << ": mean " << fixed(mean) << " ms, min "
                      << fixed(ms.front()) << " ms, median " << fixed(ms[ms.size() / 2]) << " ms\n";
        }
        if (!a->io_dump.empty()) {
            io_dump(*s, a->io_dump, a->io_dump_format == "text");
            if (!a->quiet) std::cerr << "mxc: wrote " << s->kernels.size() << " instruction outputs to " << a->io_dump << "\n";
        }
        if (!a->profile.empty()) {
            profile_kernels(*s, a->iter, a->profile);
            if (!a->quiet) std::cerr << "mxc: wrote the trace " << a->profile << "\n";
        }
    });
}

} // namespace mxc::cli
