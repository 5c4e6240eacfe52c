// The pass manager: passes are registered by name at static-init time (one file per pass,
// named after it) and run by name: `mxc opt --passes=constant-fold,dce`.
#pragma once
#include "ir/module.hpp"

#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace mxc {

struct pass {
    std::string name;                   // "constant-fold"
    std::string doc;                    // one line: what it does
    std::function<void(module&)> run;   // runs on one module (run_passes calls it on each)
};

void register_pass(pass p);
const pass* find_pass(std::string_view name);
const pass& get_pass(std::string_view name);  // throws mxc::error listing the known passes
std::vector<const pass*> all_passes();        // sorted by name

struct pass_options {
    bool print_after_all = false;
    std::vector<std::string> print_after;     // print the program after these passes
    bool time_passes = false;                 // report each pass's seconds to `report`
#ifdef NDEBUG
    bool verify_each = false;                 // verify every module after every pass
#else
    bool verify_each = true;
#endif
    std::ostream* report = nullptr;           // printing and timing; null: std::cerr
};

// Runs the named passes in order on every module of the program. Unknown names are reported
// (with the known ones) before anything runs; a failed verification names the pass.
void run_passes(program& p, const std::vector<std::string>& names, const pass_options& options = {});

// The default pipeline, in order; with fp16, convert-fp16 (mxc --fp16) runs after
// fuse-reduce and before the pointwise / epilogue fusions (passes/convert_fp16.cpp says why).
std::vector<std::string> default_pipeline(bool fp16 = false);

} // namespace mxc

// Registers a pass at static-init time: MXC_REGISTER_PASS(dce) { return pass{"dce", "...", run}; }
#define MXC_REGISTER_PASS(id)                                                           \
    static ::mxc::pass mxc_make_pass_##id();                                            \
    static const bool mxc_registered_pass_##id = (::mxc::register_pass(mxc_make_pass_##id()), true); \
    static ::mxc::pass mxc_make_pass_##id()
