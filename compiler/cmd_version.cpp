// mxc version [LIB.so]: mxc's version, the ONNX opsets it imports and the ABI of the libraries
// it generates; with a library, what built it (mxc version, target, flags).
#include "codegen/emit.hpp"
#include "compiler/commands.hpp"
#include "compiler/onnx_node.hpp"
#include "compiler/session.hpp"
#include "ir/error.hpp"

#include <dlfcn.h>

#include <filesystem>
#include <iostream>

namespace mxc::cli {

void add_version(CLI::App& app) {
    auto lib = std::make_shared<std::string>();
    auto* sub = app.add_subcommand("version", "Print mxc's version, opset range and library ABI; or what built LIB.so");
    sub->add_option("library", *lib, "a library built by mxc");
    sub->callback([lib] {
        if (lib->empty()) {
            std::cout << "mxc " << MXC_VERSION << "\nONNX opsets: 1 to " << onnx_detail::max_supported_opset
                      << " (default domain)\nlibrary ABI: "
                      << abi_version << "\n";
            return;
        }
        if (!std::filesystem::exists(*lib)) throw error("cannot read '" + *lib + "': no such file");
        std::string prefix = library_prefix(*lib);
        void* h = dlopen(std::filesystem::absolute(*lib).c_str(), RTLD_LAZY | RTLD_LOCAL);
        if (!h) throw error("cannot load " + *lib + ": " + dlerror());
        auto info = reinterpret_cast<const char* (*)()>(dlsym(h, (prefix + "_build_info").c_str()));
        std::string text = info ? info() : "";
        dlclose(h);
        std::cout << *lib << ": model '" << prefix << "'\n";
        std::size_t b = 0;
        for (std::size_t e; (e = text.find("; ", b)) != std::string::npos; b = e + 2) std::cout << "  " << text.substr(b, e - b) << "\n";
        std::cout << "  " << text.substr(b) << "\n";
    });
}

} // namespace mxc::cli
