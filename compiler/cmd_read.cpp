#include "compiler/commands.hpp"
#include "ir/error.hpp"
namespace mxc::cli {
void add_read(CLI::App& app) {
    auto* sub = app.add_subcommand("read", "(being written)");
    sub->callback([] { throw mxc::error("'read' is not available yet"); });
}
} // namespace mxc::cli
