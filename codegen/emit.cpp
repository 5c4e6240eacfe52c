// The parts of code generation shared by the cpu and hip emitters.
#include "codegen/emit.hpp"
#include "codegen/embedded.hpp"
#include "codegen/gemm_choice.hpp"
#include "templates/common/gemm_choice.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace mxc {

namespace {
std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (std::size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
    return s;
}

std::string int_literal(int64_t v) {
    if (v == std::numeric_limits<int64_t>::min()) return "(-INT64_C(9223372036854775807) - 1)";
    return "INT64_C(" + std::to_string(v) + ")";
}

// Exact: hexadecimal floating literals round-trip every double.
std::string double_literal(double v) {
    if (std::isnan(v)) return "__builtin_nan(\"\")";
    if (std::isinf(v)) return v > 0 ? "__builtin_inf()" : "(-__builtin_inf())";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%a", v);
    return buf;
}

template <class T, class F> std::string braced(const std::vector<T>& v, F f) {
    std::string s = "{";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + f(v[i]);
    return s + "}";
}

std::string ints(const std::vector<int64_t>& v) {
    return braced(v.empty() ? std::vector<int64_t>{0} : v, [](int64_t x) { return std::to_string(x); });
}

std::string desc(const shape& s) {
    if (s.rank() > MXC_MAX_RANK)
        throw error("emit: rank " + std::to_string(s.rank()) + " exceeds the supported maximum of " +
                    std::to_string(MXC_MAX_RANK));
    return "{" + std::to_string(s.rank()) + ", " + ints(s.lens) + ", " + ints(s.strides) + "}";
}

std::string tensor_info(const std::string& name, const shape& s, int64_t bytes) {
    return "{" + c_string(name) + ", static_cast<mxc_dtype>(" + std::to_string(static_cast<int>(s.type)) + "), " +
           std::to_string(s.rank()) + ", " + ints(s.lens) + ", " + ints(s.strides) + ", " + std::to_string(bytes) + "}";
}

std::string pointer(const location& loc, bool output_side) {
    std::string base, off = loc.offset ? " + " + std::to_string(loc.offset) : "";
    switch (loc.kind) {
    case location::input:
        if (!loc.offset) return "in[" + std::to_string(loc.index) + "]";
        return "static_cast<const char*>(in[" + std::to_string(loc.index) + "])" + off;
    case location::output:
        if (!loc.offset) return "out[" + std::to_string(loc.index) + "]";
        return std::string(output_side ? "static_cast<char*>(" : "static_cast<const char*>(") + "out[" +
               std::to_string(loc.index) + "])" + off;
    case location::weights: return "w" + off;
    case location::arena: return "arena" + off;
    }
    return "nullptr";
}

std::string one_line(std::string s) {
    for (auto& c : s)
        if (c == '\n' || c == '\r') c = ' ';
    return s;
}

std::string embedded(const std::string& path) {
    for (auto& f : embedded_files())
        if (f.path == path) return std::string(f.content);
    throw error("internal: embedded file '" + path + "' is missing");
}
} // namespace

std::string c_string(const std::string& s) {
    std::string r = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') r += std::string("\\") + static_cast<char>(c);
        else if (c >= 0x20 && c < 0x7f && c != '?') r += static_cast<char>(c); // '?': no trigraphs
        else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\%03o", c);
            r += buf;
        }
    }
    return r + "\"";
}

namespace {
// The kernel templates each templates/<target>/ header defines: "name(const mxc_kargs&".
const std::map<std::string, std::set<std::string>>& template_definitions(const std::string& target) {
    static std::map<std::string, std::map<std::string, std::set<std::string>>> cache; // target -> header -> names
    auto& defs = cache[target];
    if (!defs.empty()) return defs;
    static const std::regex def("\\b([A-Za-z_][A-Za-z0-9_]*)\\s*\\(\\s*const\\s+mxc_kargs\\s*&");
    std::string dir = "templates/" + target + "/";
    for (auto& f : embedded_files()) {
        std::string path(f.path);
        if (path.rfind(dir, 0) != 0 || path.size() < 4 || path.substr(path.size() - 4) != ".hpp") continue;
        std::string text(f.content);
        auto& names = defs[path];
        for (std::sregex_iterator it(text.begin(), text.end(), def), e; it != e; ++it) names.insert((*it)[1].str());
    }
    return defs;
}

// The headers that define the kernels of `kernels` (indices into l.kernels), sorted.
std::vector<std::string> headers_for(const lowered_module& l, const std::vector<std::size_t>& kernels,
                                     const std::string& target) {
    auto& defs = template_definitions(target);
    std::set<std::string> headers;
    for (std::size_t i : kernels) {
        auto& k = l.kernels[i];
        bool found = false;
        for (auto& [path, names] : defs)
            if (names.count(k.kernel)) {
                headers.insert(path);
                found = true;
            }
        if (!found)
            throw error("emit: no " + target + " kernel template '" + k.kernel + "' (for op " + k.ins->op +
                        (k.ins->origin.empty() ? "" : " from " + k.ins->origin) + ") in templates/" + target + "/");
    }
    return {headers.begin(), headers.end()};
}

// The arguments of kernel k's template: T, for a cast the source's type S, and on cpu the
// kernel params that choose a branch (op_def::cpu_template_ip).
std::string template_args(const kernel_call& k, const std::string& target) {
    std::string r(dtype_c_name(k.type));
    if (k.source_type) r += ", " + std::string(dtype_c_name(*k.source_type));
    if (target == "cpu")
        for (int i = 0; i < k.cpu_template_ip; ++i) r += ", " + std::to_string(k.params.ip.at(static_cast<std::size_t>(i)));
    return r;
}

// Which translation unit defines each kernel (0: the model source). Kernels that instantiate
// the same template (name and arguments) share a unit, since the instantiation is most of a unit's
// compile time; a fused kernel is an instantiation of its own. The groups go, largest first,
// to the least loaded of ceil(groups / groups_per_unit) units (at most max_units). Depends only
// on the module, so the sources are the same on every machine.
std::vector<int> assign_units(const lowered_module& l, const std::string& target, int groups_per_unit, int max_units) {
    std::vector<int> unit(l.kernels.size(), 0);
    if (groups_per_unit <= 0) return unit;
    std::map<std::string, std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < l.kernels.size(); ++i) {
        auto& k = l.kernels[i];
        std::string key = k.kernel + "<" + template_args(k, target) + ">";
        if (is_fused_kernel(k)) key += "#" + k.ins->attrs.get_string("body"); // same body: one instantiation
        groups[key].push_back(i);
    }
    int n = static_cast<int>(std::min<std::size_t>((groups.size() + groups_per_unit - 1) / groups_per_unit,
                                                   static_cast<std::size_t>(std::max(1, max_units))));
    if (n <= 1) return unit;
    std::vector<const std::vector<std::size_t>*> order;
    for (auto& g : groups) order.push_back(&g.second);
    std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->size() > b->size(); });
    std::vector<std::size_t> load(static_cast<std::size_t>(n), 0);
    for (auto* g : order) {
        auto u = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
        load[u] += 4 + g->size(); // an instantiation costs more than a call
        for (std::size_t i : *g) unit[i] = static_cast<int>(u);
    }
    return unit;
}

// The fused kernel whose body functor kernel i uses: the first with the same body text, so that
// kernels with equal bodies (most of a CNN's conv+bias+relu) share one template instantiation.
std::size_t body_owner(const lowered_module& l, std::size_t i) {
    const std::string& body = l.kernels[i].ins->attrs.get_string("body");
    for (std::size_t j = 0; j < i; ++j)
        if (is_fused_kernel(l.kernels[j]) && l.kernels[j].ins->attrs.get_string("body") == body) return j;
    return i;
}

// The signature of the function that runs one kernel.
std::string kernel_fn(std::size_t i, const target_style& st) {
    return "void kernel_" + std::to_string(i) + "(char* arena, const char* w, const void* const* in, void* const* out" +
           st.run_extra_param + ")";
}

// Kernel i's descriptors, parameters and the function that calls its template.
// bodies: the body functors this translation unit already defines.
void emit_kernel(std::ostream& o, const lowered_module& l, std::size_t i, const target_style& st,
                 std::set<std::size_t>& bodies) {
    auto& k = l.kernels[i];
    std::string id = "k" + std::to_string(i);
    const std::string body_id = is_fused_kernel(k) ? "k" + std::to_string(body_owner(l, i)) : id;
    o << "// " << i << ": " << k.ins->op;
    if (!k.ins->attrs.items.empty()) {
        o << "[";
        for (std::size_t a = 0; a < k.ins->attrs.items.size(); ++a)
            o << (a ? "," : "") << k.ins->attrs.items[a].first << "=" << one_line(to_string(k.ins->attrs.items[a].second));
        o << "]";
    }
    o << " -> " << to_string(k.out_shape);
    if (!k.ins->origin.empty()) o << " (" << one_line(k.ins->origin) << ")";
    if (!k.note.empty()) o << " [" << k.note << "]";
    o << "\n";
    o << "static const mxc_desc " << id << "_in[] = {";
    for (std::size_t j = 0; j < k.in_shapes.size(); ++j) o << (j ? ", " : "") << desc(k.in_shapes[j]);
    if (k.in_shapes.empty()) o << "{0, {0}, {0}}";
    o << "};\n";
    o << "static const mxc_desc " << id << "_out = " << desc(k.out_shape) << ";\n";
    if (!k.params.ip.empty()) o << "static const int64_t " << id << "_ip[] = " << braced(k.params.ip, int_literal) << ";\n";
    if (!k.params.fp.empty()) o << "static const double " << id << "_fp[] = " << braced(k.params.fp, double_literal) << ";\n";
    if (is_fused_kernel(k) && bodies.insert(body_owner(l, i)).second) o << fused_body_functor(k, body_id);
    o << kernel_fn(i, st) << " {\n";
    o << "    (void)arena; (void)w; (void)in; (void)out;\n";
    o << "    const void* p[] = {";
    for (std::size_t j = 0; j < k.in.size(); ++j) o << (j ? ", " : "") << pointer(k.in[j], false);
    if (k.in.empty()) o << "nullptr";
    o << "};\n";
    o << "    const mxc_kargs k = {" << k.in.size() << ", p, " << id << "_in, " << pointer(k.out, true) << ", &" << id
      << "_out, " << (k.params.ip.empty() ? "nullptr" : id + "_ip") << ", " << k.params.ip.size() << ", "
      << (k.params.fp.empty() ? "nullptr" : id + "_fp") << ", " << k.params.fp.size() << ", "
      << (k.scratch_bytes > 0 ? pointer(k.scratch, true) : "nullptr") << "};\n";
    // The kernel a hip GEMM launch runs (the tuning database's tile or the rule's preset, the
    // convolution's form; codegen/gemm_choice.hpp) as template arguments, so only it is
    // instantiated.
    const hip_launch_choice choice = st.target == "hip" ? hip_launch_choice_of(k) : hip_launch_choice{};
    // cpu: a dot whose constant b the compiler stored as the GEMM's panels (dot_weights_strips.cpp)
    // or a convolution whose weights it stored as the GEMM's row panels (conv_weights_panels.cpp)
    const std::string cfg = st.target == "cpu" && (k.b_strips || k.a_panels) ? ", true" : choice.args;
    if (!choice.comment.empty()) o << "    // " << choice.comment << "\n";
    if (is_fused_kernel(k)) o << "    " << fused_call(k, body_id, st, cfg) << "\n";
    else o << "    mxc::" << st.target << "::" << k.kernel << "<" << template_args(k, st.target) << cfg << ">(k" << st.call_suffix << ");\n";
    o << "}\n";
}

// The kernels unit `u` defines.
std::vector<std::size_t> unit_kernels(const std::vector<int>& unit, int u) {
    std::vector<std::size_t> r;
    for (std::size_t i = 0; i < unit.size(); ++i)
        if (unit[i] == u) r.push_back(i);
    return r;
}

// A translation unit besides the model source: the kernels assigned to it.
std::string emit_kernel_unit(const lowered_module& l, const std::string& name, const target_style& st,
                             const std::vector<std::size_t>& kernels, int u) {
    std::ostringstream o;
    o << "// Generated by mxc: model '" << name << "' for target " << st.target << ", kernel unit " << u
      << ". Do not edit.\n";
    o << st.prologue;
    o << "#include \"mxc_model.h\"\n";
    for (auto& h : headers_for(l, kernels, st.target)) o << "#include \"" << h << "\"\n";
    o << "\nnamespace mxc_gen {\n";
    std::set<std::size_t> bodies;
    for (std::size_t i : kernels) emit_kernel(o, l, i, st, bodies);
    o << "} // namespace mxc_gen\n";
    return o.str();
}

std::string unit_path(const target_style& st, int u) {
    std::string ext = st.source_name.substr(st.source_name.find('.'));
    return "kernels" + std::to_string(u) + ext;
}
} // namespace

std::vector<std::string> kernel_headers(const lowered_module& l, const std::string& target) {
    std::vector<std::size_t> all(l.kernels.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    return headers_for(l, all, target);
}

std::string emit_model_source(const lowered_module& l, const std::string& name, const target_style& st,
                              const emit_flags& flags) {
    return emit_model_source(l, name, st, flags, std::vector<int>(l.kernels.size(), 0));
}

std::string emit_model_source(const lowered_module& l, const std::string& name, const target_style& st,
                              const emit_flags& flags, const std::vector<int>& unit) {
    auto own = unit_kernels(unit, 0);
    std::ostringstream o;
    o << "// Generated by mxc: model '" << name << "' for target " << st.target << ". Do not edit.\n";
    o << st.prologue;
    if (flags.profile) o << "#define MXC_PROFILE 1\n";
    if (flags.debug_trace) o << "#define MXC_DEBUG_TRACE 1\n";
    o << "#include \"mxc_model.h\"\n";
    o << "#include \"runtime-stub/hooks.hpp\"\n";
    for (auto& h : headers_for(l, own, st.target)) o << "#include \"" << h << "\"\n";
    o << "\n#define MXC_FN(x) " << name << "_##x\n\n";
    o << "extern \"C\" __attribute__((visibility(\"hidden\"))) const char " << name << "_mxc_weights[];\n\n";
    o << "namespace mxc_gen {\n";
    o << "static const size_t arena_bytes = " << l.plan.arena_bytes << ";\n";
    o << "static const size_t weights_bytes = " << l.weights.size() << ";\n";
    if (st.target == "hip") {
        // split-K's tile counters at the start of the GEMM scratch (reserve_gemm_scratch): zero
        // before the first split launch; each launch leaves them zero (templates/hip/gemm.hpp,
        // gemm_fixup_out). The runtime clears them once at create in its own arena, and at the
        // start of every run in a caller's workspace (which may have held anything since).
        int64_t counters = -1;
        for (const kernel_call& k : l.kernels)
            if (k.scratch_bytes > 0 && k.scratch.kind == location::arena) {
                counters = k.scratch.offset;
                break;
            }
        o << "static const int64_t split_counters = " << counters << "; // (arena offset; -1: no split-K scratch)\n";
        o << "static const size_t split_counter_bytes = " << mxc_gemm_split_counter_bytes << ";\n";
    }
    o << "static const char* const weights = " << name << "_mxc_weights;\n";
    o << "static const size_t num_inputs = " << l.inputs.size() << ";\n";
    o << "static const size_t num_outputs = " << l.outputs.size() << ";\n";
    o << "static const char build_info[] = " << c_string(flags.build_info) << ";\n";
    if (flags.profile || flags.debug_trace) o << emit_kernel_table(l, flags.notes);
    auto infos = [&](const char* var, const std::vector<const instruction*>& v, bool inputs) {
        o << "static const mxc_tensor_info " << var << "[] = {\n";
        for (std::size_t i = 0; i < v.size(); ++i) {
            const shape& s = v[i]->result;
            std::string tname = inputs ? v[i]->param_name
                                : i < l.output_names.size() && !l.output_names[i].empty() ? l.output_names[i]
                                                                                          : "output" + std::to_string(i);
            int64_t bytes = inputs ? checked_mul(s.element_space(), static_cast<int64_t>(dtype_size(s.type))) : s.bytes();
            o << "    " << tensor_info(tname, inputs ? s : s.as_standard(), bytes) << ",\n";
        }
        if (v.empty()) o << "    {\"\", MXC_FLOAT32, 0, {0}, {0}, 0},\n";
        o << "};\n";
    };
    infos("input_infos", l.inputs, true);
    infos("output_infos", l.outputs, false);
    o << "\n";

    for (std::size_t i = 0; i < l.kernels.size(); ++i)
        if (unit[i] != 0) o << kernel_fn(i, st) << "; // in " << unit_path(st, unit[i]) << "\n";
    std::set<std::size_t> bodies;
    for (std::size_t i : own) emit_kernel(o, l, i, st, bodies);

    o << "\nstatic void run_kernels(char* arena, const char* w, const void* const* in, void* const* out, mxc_hooks* h"
      << st.run_extra_param << ") {\n";
    o << "    (void)arena; (void)w; (void)in; (void)out; (void)h;\n";
    std::string extra = st.call_suffix; // ", stream"
    for (std::size_t i = 0; i < l.kernels.size(); ++i) {
        o << "    MXC_KERNEL_BEGIN(" << i << ");\n";
        o << "    kernel_" << i << "(arena, w, in, out" << extra << ");\n";
        o << "    MXC_KERNEL_END(" << i << ", " << pointer(l.kernels[i].out, true) << ");\n";
    }
    o << "}\n} // namespace mxc_gen\n\n#include \"runtime-stub/runtime.hpp\"\n";
    return o.str();
}

std::string emit_header(const lowered_module& l, const std::string& name, const std::string& target) {
    std::string upper = name;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    std::string h = embedded("runtime-stub/model.h");
    h = replace_all(h, "@NAME_UPPER@", upper);
    h = replace_all(h, "@NAME@", name);
    h = replace_all(h, "@TARGET@", target);
    h = replace_all(h, "@WORKSPACE_BYTES@", std::to_string(l.plan.arena_bytes));
    h = replace_all(h, "@NUM_INPUTS@", std::to_string(l.inputs.size()));
    h = replace_all(h, "@NUM_OUTPUTS@", std::to_string(l.outputs.size()));
    return h;
}

namespace {
target_style style_for(const std::string& target) {
    if (target == "cpu") return cpu_style();
    if (target == "hip") return hip_style();
    throw error("emit: unknown target '" + target + "' (expected cpu or hip)");
}
} // namespace

emitted_library library_layout(const lowered_module& l, const std::string& target, const std::string& name,
                               const emit_flags& flags) {
    target_style st = style_for(target);
    emitted_library e;
    e.name = name;
    e.target = target;
    e.model_source = st.source_name;
    e.weights_source = "weights.cpp";
    e.header = "mxc_model.h";
    e.exports = "exports.map";
    std::vector<int> unit = assign_units(l, target, flags.groups_per_unit, flags.max_units);
    int units = unit.empty() ? 1 : *std::max_element(unit.begin(), unit.end()) + 1;
    for (int u = 1; u < units; ++u) e.units.push_back(unit_path(st, u));
    for (int u = 0; u < units; ++u) e.unit_kernel_counts.push_back(unit_kernels(unit, u).size());
    return e;
}

namespace {
// Every file but weights.bin.
emitted_library emit_sources(const lowered_module& l, const std::string& target, const std::string& name,
                             const emit_flags& flags) {
    target_style st = style_for(target);
    emitted_library e = library_layout(l, target, name, flags);
    e.files.push_back({e.header, emit_header(l, name, target)});
    std::vector<int> unit = assign_units(l, target, flags.groups_per_unit, flags.max_units);
    e.files.push_back({e.model_source, emit_model_source(l, name, st, flags, unit)});
    for (std::size_t u = 1; u <= e.units.size(); ++u)
        e.files.push_back({e.units[u - 1], emit_kernel_unit(l, name, st, unit_kernels(unit, static_cast<int>(u)),
                                                            static_cast<int>(u))});
    // The weights: one blob, embedded by the assembler (never a giant C array). Host code only.
    e.files.push_back({e.weights_source,
                       "// Generated by mxc: the weights of model '" + name + "', embedded from weights.bin.\n"
                       "#if !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)\n"
                       "__asm__(\".section .rodata." + name + "_mxc_weights,\\\"a\\\",@progbits\\n\"\n"
                       "        \".balign 256\\n\"\n"
                       "        \".globl " + name + "_mxc_weights\\n\"\n"
                       "        \".hidden " + name + "_mxc_weights\\n\"\n"
                       "        \".type " + name + "_mxc_weights, @object\\n\"\n"
                       "        \"" + name + "_mxc_weights:\\n\"\n"
                       "        \".incbin \\\"weights.bin\\\"\\n\"\n"
                       "        \".byte 0\\n\"\n"
                       "        \".size " + name + "_mxc_weights, . - " + name + "_mxc_weights\\n\"\n"
                       "        \".previous\\n\");\n"
                       "#endif\n"});
    std::string map = "{\n  global:\n";
    for (const char* fn : {"create", "destroy", "set_num_threads", "num_inputs", "num_outputs", "input_info", "output_info", "run",
                           "run_async", "workspace_bytes", "last_error", "build_info"})
        map += "    " + name + "_" + fn + ";\n";
    if (flags.profile || flags.debug_trace)
        map += "    " + name + "_num_kernels;\n    " + name + "_kernel_info;\n    " + name + "_graph_stats;\n";
    if (flags.profile) map += "    " + name + "_profile;\n    " + name + "_time_runs;\n";
    if (flags.debug_trace) map += "    " + name + "_debug_run;\n";
    map += "  local: *;\n};\n";
    e.files.push_back({e.exports, map});
    return e;
}
} // namespace

emitted_library emit_library(const lowered_module& l, const std::string& target, const std::string& name,
                             const emit_flags& flags) {
    emitted_library e = emit_sources(l, target, name, flags);
    e.files.push_back({"weights.bin", l.weights});
    return e;
}

emitted_library emit_library(lowered_module&& l, const std::string& target, const std::string& name,
                             const emit_flags& flags) {
    emitted_library e = emit_sources(l, target, name, flags);
    e.files.push_back({"weights.bin", std::move(l.weights)});
    l.weights.clear();
    return e;
}

} // namespace mxc
