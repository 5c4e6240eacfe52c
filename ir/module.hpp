// The IR: a program holds modules; a module is an ordered list of instructions in SSA form.
// Instructions live in a std::list (stable addresses); inputs are pointers to earlier
// instructions of the same module.
#pragma once
#include "ir/attribute.hpp"
#include "ir/literal.hpp"
#include "ir/shape.hpp"

#include <list>
#include <memory>
#include <string>
#include <vector>

namespace mxc {

struct instruction {
    std::string op;                     // op name, or "@param", "@literal", "@return"
    attributes attrs;
    std::vector<instruction*> inputs;
    shape result;                       // "@return" has an empty shape
    literal lit;                        // for "@literal"
    std::string param_name;             // for "@param"
    std::string origin;                 // the ONNX node this came from ("Conv 'conv1'"), for messages

    bool is_param() const { return op == "@param"; }
    bool is_literal() const { return op == "@literal"; }
    bool is_return() const { return op == "@return"; }
    bool is_builtin() const { return !op.empty() && op[0] == '@'; }
};

using ins_iter = std::list<instruction>::iterator;

struct module {
    std::string name = "main";
    std::list<instruction> instructions;
    std::vector<std::string> output_names; // names of the @return values (ONNX graph outputs); may be empty

    instruction* add_param(const std::string& name, const shape& s);
    instruction* add_literal(literal l);
    // Appends an op: fills in default attributes and computes the result shape (throws
    // mxc::error naming the op and what was wrong).
    instruction* add(const std::string& op, std::vector<instruction*> inputs, attributes attrs = {});
    instruction* add_return(std::vector<instruction*> outputs);

    // Same as `add`, inserted before `pos`.
    instruction* insert(ins_iter pos, const std::string& op, std::vector<instruction*> inputs, attributes attrs = {});
    instruction* insert_literal(ins_iter pos, literal l);

    ins_iter iter(const instruction* ins);                 // the position of an instruction
    void replace_uses(instruction* from, instruction* to); // every use of `from` now uses `to`
    void remove(instruction* ins);                         // must have no users
    std::vector<instruction*> users(const instruction* ins) const;

    std::vector<instruction*> params() const;
    instruction* find_param(const std::string& name) const;
    instruction* return_ins() const;                       // null if none
    std::vector<instruction*> outputs() const;             // inputs of @return
};

struct program {
    std::vector<std::unique_ptr<module>> modules;
    program() { modules.push_back(std::make_unique<module>()); }
    module& main() { return *modules.front(); }
    const module& main() const { return *modules.front(); }
};

// Checks SSA order, input counts, attribute kinds and that every result shape equals the one
// recomputed from its inputs; throws mxc::error naming the instruction.
void verify(const module& m);

// Text form (DESIGN.md). Instruction names are assigned on printing: params by their name,
// others "<module>:@<n>" numbered in order.
std::string print(const module& m);
// The names the printer gives: params by their name, others "<module>:@<n>" (n counts every
// non-param instruction), one per instruction in order.
std::vector<std::string> instruction_names(const module& m);
std::string print(const program& p);
program parse_program(const std::string& text);       // throws mxc::error "line N: ..."

} // namespace mxc
