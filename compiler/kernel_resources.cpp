#include "compiler/kernel_resources.hpp"

#include "compiler/json.hpp"

#include <algorithm>
#include <cstdlib>
#include <cxxabi.h>
#include <memory>
#include <regex>
#include <sstream>

namespace mxc {

std::vector<std::string> kernel_resource_flags(const std::string& arch) {
    if (arch.rfind("sm_", 0) == 0) return {"-Xptxas", "-v"};
    if (arch.rfind("gfx", 0) == 0) return {"-Rpass-analysis=kernel-resource-usage"};
    return {};
}

std::vector<kernel_resource> parse_kernel_resources(const std::string& output) {
    // ptxas: "Compiling entry function 'K' for 'sm_90'", then "Function properties for K" and
    // "N bytes stack frame, S bytes spill stores, L bytes spill loads", then "Used R registers,
    // ... B bytes smem" (a non-entry function gets properties too: they are skipped).
    // clang: "remark: Function Name: K", then "remark:     VGPRs: N" and so on.
    static const std::regex entry(R"(Compiling entry function '([^']+)')"), props(R"(Function properties for (\S+))"),
        frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)"),
        used(R"(Used (\d+) registers)"), smem(R"((\d+) bytes smem)"), amd_name(R"(remark: Function Name: (\S+))"),
        amd_field(R"(remark:\s+([A-Za-z ]+?)(?: \[[^\]]*\])?: (\d+))");
    std::vector<kernel_resource> ks;
    std::istringstream in(output);
    std::string line, props_of;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_search(line, m, entry)) {
            ks.push_back({});
            ks.back().kernel = m[1];
            props_of.clear();
        } else if (std::regex_search(line, m, props)) {
            props_of = m[1];
        } else if (std::regex_search(line, m, frame)) {
            if (!ks.empty() && props_of == ks.back().kernel) {
                ks.back().stack = std::stoll(m[1]);
                ks.back().spill_stores = std::stoll(m[2]);
                ks.back().spill_loads = std::stoll(m[3]);
            }
        } else if (std::regex_search(line, m, used)) {
            if (!ks.empty() && ks.back().registers < 0) {
                ks.back().registers = std::stoll(m[1]);
                if (std::smatch s; std::regex_search(line, s, smem)) ks.back().shared = std::stoll(s[1]);
            }
        } else if (std::regex_search(line, m, amd_name)) {
            ks.push_back({});
            ks.back().kernel = m[1];
        } else if (!ks.empty() && std::regex_search(line, m, amd_field)) {
            const std::string f = m[1];
            const int64_t v = std::stoll(m[2]);
            auto& k = ks.back();
            if (f == "VGPRs") k.registers = v;
            else if (f == "AGPRs") k.agprs = v;
            else if (f == "ScratchSize") k.stack = v;
            else if (f == "VGPRs Spill") k.spill_stores = v;
            else if (f == "LDS Size") k.shared = v;
            else if (f == "Occupancy") k.occupancy = v;
        }
    }
    return ks;
}

void merge_kernel_resources(std::vector<kernel_resource>& all, const std::vector<kernel_resource>& more) {
    for (auto& k : more)
        if (std::none_of(all.begin(), all.end(), [&](const kernel_resource& a) { return a.kernel == k.kernel; }))
            all.push_back(k);
}

std::string demangle_kernel(const std::string& mangled) {
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && d ? std::string(d.get()) : mangled;
}

std::string kernel_resources_json(const std::vector<kernel_resource>& ks) {
    std::ostringstream o;
    o << "[";
    for (std::size_t i = 0; i < ks.size(); ++i) {
        const auto& k = ks[i];
        o << (i ? ",\n    " : "\n    ") << "{\"kernel\": " << json_quote(demangle_kernel(k.kernel))
          << ", \"registers\": " << k.registers << ", \"agprs\": " << k.agprs << ", \"stack_bytes\": " << k.stack
          << ", \"spill_stores\": " << k.spill_stores << ", \"spill_loads\": " << k.spill_loads
          << ", \"shared_bytes\": " << k.shared << ", \"occupancy\": " << k.occupancy << "}";
    }
    o << (ks.empty() ? "]" : "\n  ]");
    return o.str();
}

namespace {
// The kernel's template name and its first template argument: enough to find it in the
// generated source (mxc::hip::gemm_kernel<mxc::hip::gemm_config<64, 64, 8, 4, 4>, ...>).
std::string short_name(const std::string& mangled) {
    std::string d = demangle_kernel(mangled);
    if (auto p = d.find('('); p != std::string::npos) d = d.substr(0, p);
    if (auto p = d.rfind(' ', d.find('<')); p != std::string::npos && p < d.find('<')) d = d.substr(p + 1);
    return d.size() > 110 ? d.substr(0, 107) + "..." : d;
}
} // namespace

std::string kernel_resources_summary(const std::vector<kernel_resource>& ks, std::size_t top) {
    if (ks.empty()) return "";
    const auto most = std::max_element(ks.begin(), ks.end(), [](auto& a, auto& b) { return a.registers < b.registers; });
    std::vector<const kernel_resource*> heavy;
    for (auto& k : ks)
        if (k.stack > 0 || k.spill_stores > 0) heavy.push_back(&k);
    std::stable_sort(heavy.begin(), heavy.end(), [](auto* a, auto* b) { return a->stack > b->stack; });
    std::ostringstream o;
    o << "kernel resources: " << ks.size() << " kernels, at most " << most->registers << " registers ("
      << short_name(most->kernel) << "), " << heavy.size() << " with a stack frame or spills";
    for (std::size_t i = 0; i < heavy.size() && i < top; ++i)
        o << "\n  " << heavy[i]->stack << " bytes of stack, " << heavy[i]->spill_stores << " of spill stores: "
          << short_name(heavy[i]->kernel);
    return o.str();
}

} // namespace mxc
