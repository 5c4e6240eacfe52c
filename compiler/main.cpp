// mxc: the driver. Every failure is one line on stderr and a non-zero exit.
#include "compiler/commands.hpp"
#include "ir/error.hpp"
#include "templates/cpu/gemm.hpp"

#include <cstdio>
#include <exception>
#include <string>

int main(int argc, char** argv) {
    // Constant folding and the reference evaluator use the base GEMM kernel on every machine:
    // a library's folded weights do not depend on the CPU that built it.
    static const mxc::cpu::gemm_isa base = mxc::cpu::gemm_isa::base;
    mxc::cpu::gemm_isa_pinned() = &base;
    CLI::App app{"mxc: an ahead-of-time ONNX model compiler (ONNX in, a self-contained shared library out)"};
    app.set_version_flag("--version", std::string("mxc ") + MXC_VERSION);
    mxc::cli::setup_compile(app);
    mxc::cli::add_read(app);
    mxc::cli::add_opt(app);
    mxc::cli::add_params(app);
    mxc::cli::add_version(app);
    mxc::cli::add_run(app);
    mxc::cli::add_perf(app);
    mxc::cli::add_profile(app);
    mxc::cli::add_compare(app);
    mxc::cli::add_verify(app);
    mxc::cli::add_conformance(app);
    mxc::cli::add_ops(app);
    mxc::cli::add_plan_bench(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::RuntimeError& e) { // a tool's verdict (compare, verify): already reported
        return e.get_exit_code();
    } catch (const CLI::ParseError& e) {
        std::string msg = e.what();
        std::fprintf(stderr, "mxc: error: %s (see mxc --help)\n", msg.c_str());
        return 2;
    } catch (const mxc::error& e) {
        std::fprintf(stderr, "mxc: error: %s\n", e.what());
        return 1;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "mxc: error: out of memory\n");
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mxc: error: internal: %s\n", e.what());
        return 1;
    }
    return 0;
}
