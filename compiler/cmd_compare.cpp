// mxc compare DIR_A DIR_B [--rtol R] [--atol A]: two --io-dump directories (cpu against
// hip, ref against cpu, ...): instructions are matched by name, in A's order, and the first
// whose outputs differ beyond atol + rtol * |b| is reported with by how much. Exits 1 then.
#include "compiler/commands.hpp"
#include "compiler/compare_values.hpp"
#include "compiler/tensor_io.hpp"
#include "compiler/tool_cli.hpp"
#include "ir/error.hpp"

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace mxc::cli {

namespace {
struct dump_entry {
    std::string name, op, file;
};

struct dump {
    std::string target;
    std::vector<dump_entry> entries;
};

dump read_dump(const std::string& dir) {
    std::ifstream f(dir + "/index.tsv");
    if (!f) throw error(dir + " is not an --io-dump directory (no index.tsv)");
    dump d;
    for (std::string line; std::getline(f, line);) {
        if (line.rfind("# target ", 0) == 0) d.target = line.substr(9);
        if (line.empty() || line[0] == '#') continue;
        std::istringstream in(line);
        std::string index;
        dump_entry e;
        if (!std::getline(in, index, '\t') || !std::getline(in, e.name, '\t') || !std::getline(in, e.op, '\t') ||
            !std::getline(in, e.file))
            throw error(dir + "/index.tsv: bad line '" + line + "'");
        d.entries.push_back(e);
    }
    return d;
}

literal load(const std::string& dir, const std::string& file) {
    std::string path = dir + "/" + file;
    return file.size() > 4 && file.substr(file.size() - 4) == ".txt" ? read_tensor_text(path) : read_npy(path);
}

std::string lens(const shape& s) { return to_string(s.as_standard()); }
} // namespace

void add_compare(CLI::App& app) {
    auto dirs = std::make_shared<std::vector<std::string>>();
    auto tol = std::make_shared<std::pair<double, double>>(1e-3, 1e-5);
    auto* sub = app.add_subcommand("compare", "Compare two --io-dump directories: the first instruction whose outputs differ");
    sub->add_option("dirs", *dirs, "DIR_A DIR_B")->required()->expected(2);
    sub->add_option("--rtol", tol->first, "relative tolerance (default 1e-3)");
    sub->add_option("--atol", tol->second, "absolute tolerance (default 1e-5)");
    sub->callback([dirs, tol] {
        auto& A = (*dirs)[0];
        auto& B = (*dirs)[1];
        dump a = read_dump(A), b = read_dump(B);
        std::map<std::string, const dump_entry*> in_b;
        for (auto& e : b.entries) in_b[e.name] = &e;
        std::size_t compared = 0, missing = 0;
        for (std::size_t i = 0; i < a.entries.size(); ++i) {
            auto& ea = a.entries[i];
            auto it = in_b.find(ea.name);
            if (it == in_b.end()) {
                missing++;
                continue;
            }
            literal x = load(A, ea.file), y = load(B, it->second->file);
            compared++;
            std::string where = "instruction " + ea.name + " (" + ea.op + ", #" + std::to_string(i) + " in " + A + ")";
            if (x.s.lens != y.s.lens || x.s.type != y.s.type) {
                std::cout << "DIFFERENT " << where << ": " << lens(x.s) << " in " << A << ", " << lens(y.s) << " in " << B << "\n";
                throw CLI::RuntimeError(1);
            }
            value_diff d = diff_values(x, y, tol->first, tol->second);
            if (d.mismatches) {
                std::cout << "DIFFERENT " << where << ": " << d.mismatches << " of " << x.s.elements()
                          << " elements beyond atol " << tol->second << " + rtol " << tol->first << "; max |a-b| "
                          << d.max_abs << " at element " << d.where << " (" << d.a << " vs " << d.b << "), nrms " << d.nrms
                          << "\n";
                std::cout << "(" << compared - 1 << " instructions before it agree)\n";
                throw CLI::RuntimeError(1);
            }
        }
        if (compared == 0) throw error("no instruction names in common between " + A + " and " + B);
        std::cout << "SAME: " << compared << " instructions agree within atol " << tol->second << " + rtol " << tol->first
                  << (missing ? " (" + std::to_string(missing) + " of " + A + " not in " + B + ")" : "") << "\n";
    });
}

} // namespace mxc::cli
