#include "compiler/commands.hpp"
#include "ir/error.hpp"
namespace mxc::cli {
void setup_compile(CLI::App& app) {
    app.require_subcommand(0, 1);
}
} // namespace mxc::cli
