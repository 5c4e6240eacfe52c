#include "compiler/commands.hpp"
#include "ir/error.hpp"
namespace mxc::cli {
void add_opt(CLI::App& app) {
    auto* sub = app.add_subcommand("opt", "(being written)");
    sub->callback([] { throw mxc::error("'opt' is not available yet"); });
}
} // namespace mxc::cli
