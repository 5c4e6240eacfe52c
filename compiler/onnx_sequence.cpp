// Sequences and optionals. The IR has only tensors: a sequence is a list of values whose
// length is known at build time, an optional is known at build time to hold a value or none
// (onnx_value in compiler/onnx_node.hpp). Positions must therefore be constants.
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"

namespace mxc::onnx_detail {
namespace {

using outputs = std::vector<instruction*>;
using ints = std::vector<int64_t>;
using items_t = std::vector<instruction*>;

const items_t& sequence_input(node_context& c, std::size_t i) {
    if (i >= c.values.size() || !c.values[i].sequence)
        c.fail("input " + std::to_string(i) + " must be a sequence" +
               (i < c.values.size() && c.values[i].empty() ? " (it is missing or an empty optional)" : ""));
    return *c.values[i].sequence;
}

// Input i as a position in a sequence of `size` items: negative counts from the back;
// `at_end_ok` allows size (an insertion at the back).
std::size_t position(node_context& c, std::size_t i, std::size_t size, bool at_end_ok) {
    auto v = c.const_ints(i, "position");
    if (v.size() != 1) c.fail("the position must hold one value");
    auto n = static_cast<int64_t>(size);
    int64_t p = v[0] < 0 ? v[0] + n : v[0];
    if (p < 0 || p > n || (p == n && !at_end_ok))
        c.fail("position " + std::to_string(v[0]) + " is out of range for a sequence of " + std::to_string(size) + " items");
    return static_cast<std::size_t>(p);
}

outputs set_sequence(node_context& c, items_t items) {
    c.value_outputs = {onnx_value::of_sequence(std::move(items))};
    return {};
}

outputs sequence_empty(node_context& c) { return set_sequence(c, {}); }

outputs sequence_construct(node_context& c) {
    items_t items;
    for (std::size_t i = 0; i < c.num_inputs(); ++i) items.push_back(c.input(i));
    return set_sequence(c, items);
}

outputs sequence_insert(node_context& c) {
    auto items = sequence_input(c, 0);
    auto p = c.has_input(2) ? position(c, 2, items.size(), true) : items.size();
    items.insert(items.begin() + static_cast<std::ptrdiff_t>(p), c.input(1));
    return set_sequence(c, items);
}

outputs sequence_erase(node_context& c) {
    auto items = sequence_input(c, 0);
    if (items.empty()) c.fail("the sequence is empty");
    auto p = c.has_input(1) ? position(c, 1, items.size(), false) : items.size() - 1;
    items.erase(items.begin() + static_cast<std::ptrdiff_t>(p));
    return set_sequence(c, items);
}

outputs sequence_at(node_context& c) {
    auto& items = sequence_input(c, 0);
    return {items[position(c, 1, items.size(), false)]};
}

outputs sequence_length(node_context& c) {
    return {c.scalar(dtype::int64_type, static_cast<double>(sequence_input(c, 0).size()))};
}

outputs split_to_sequence(node_context& c) {
    auto* x = c.input(0);
    auto rank = static_cast<int64_t>(x->result.rank());
    int64_t axis = c.axis(c.attr_int("axis", 0), rank);
    int64_t len = x->result.lens[static_cast<std::size_t>(axis)];
    items_t items;
    if (!c.has_input(1)) { // one item per index; keepdims 0 drops the axis
        bool keep = c.attr_int("keepdims", 1) != 0;
        for (int64_t i = 0; i < len; ++i) {
            auto* index = keep ? c.lit(literal::from<int64_t>(dtype::int64_type, {1}, {i})) : c.scalar(dtype::int64_type, static_cast<double>(i));
            items.push_back(c.add("gather", {x, index}, attrs({{"axis", axis}})));
        }
        return set_sequence(c, items);
    }
    auto& split = c.const_input(1, "split");
    auto v = c.const_ints(1, "split");
    ints sizes;
    if (split.s.rank() == 0) {
        if (v[0] <= 0) c.fail("the split size must be positive, got " + std::to_string(v[0]));
        for (int64_t off = 0; off < len; off += v[0]) sizes.push_back(std::min(v[0], len - off));
    } else {
        sizes = v;
        int64_t sum = 0;
        for (auto s : sizes) {
            if (s < 0) c.fail("split sizes must not be negative");
            sum += s;
        }
        if (sum != len)
            c.fail("split sizes add up to " + std::to_string(sum) + ", but axis " + std::to_string(axis) + " has " +
                   std::to_string(len));
    }
    int64_t off = 0;
    for (auto s : sizes) {
        ints idx;
        for (int64_t i = 0; i < s; ++i) idx.push_back(off + i);
        off += s;
        auto* index = c.lit(literal::from<int64_t>(dtype::int64_type, {s}, idx));
        items.push_back(c.add("gather", {x, index}, attrs({{"axis", axis}})));
    }
    return set_sequence(c, items);
}

outputs concat_from_sequence(node_context& c) {
    auto& items = sequence_input(c, 0);
    if (items.empty()) c.fail("the sequence is empty");
    bool new_axis = c.attr_int("new_axis", 0) != 0;
    auto rank = static_cast<int64_t>(items[0]->result.rank()) + (new_axis ? 1 : 0);
    if (!c.has_attr("axis")) c.fail("attribute 'axis' is required but missing");
    int64_t axis = c.axis(c.attr_int("axis", 0), rank);
    items_t parts;
    for (auto* x : items) parts.push_back(new_axis ? c.add("unsqueeze", {x}, attrs({{"axes", ints{axis}}})) : x);
    return {parts.size() == 1 ? parts[0] : c.add("concat", parts, attrs({{"axis", axis}}))};
}

outputs sequence_map(node_context& c) {
    auto* a = c.attr("body");
    if (!a || !a->has_g()) c.fail("attribute 'body' (a graph) is required but missing");
    std::size_t n = sequence_input(c, 0).size();
    for (std::size_t j = 1; j < c.values.size(); ++j)
        if (c.values[j].sequence && c.values[j].sequence->size() != n)
            c.fail("input " + std::to_string(j) + " has " + std::to_string(c.values[j].sequence->size()) +
                   " items, input 0 has " + std::to_string(n));
    std::vector<items_t> results(static_cast<std::size_t>(c.node.output_size()));
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<onnx_value> in;
        for (std::size_t j = 0; j < c.values.size(); ++j)
            in.push_back(c.values[j].sequence ? onnx_value::of((*c.values[j].sequence)[i]) : onnx_value::of(c.input(j)));
        auto out = c.run_graph(a->g(), in, "body (item " + std::to_string(i) + ")");
        if (out.size() < results.size()) c.fail("the body has fewer outputs than the node");
        for (std::size_t k = 0; k < results.size(); ++k) {
            if (!out[k].tensor) c.fail("the body's output " + std::to_string(k) + " must be a tensor");
            results[k].push_back(out[k].tensor);
        }
    }
    for (auto& r : results) c.value_outputs.push_back(onnx_value::of_sequence(r));
    return {};
}

outputs optional_op(node_context& c) {
    onnx_value v;
    if (!c.values.empty()) v = c.values[0];
    v.optional = true;
    c.value_outputs = {v};
    return {};
}

outputs optional_has_element(node_context& c) {
    bool has = !c.values.empty() && !c.values[0].empty();
    return {c.scalar(dtype::bool_type, has ? 1 : 0)};
}

outputs optional_get_element(node_context& c) {
    if (c.values.empty() || c.values[0].empty()) c.fail("the optional input holds no value");
    auto v = c.values[0];
    v.optional = false;
    c.value_outputs = {v};
    return {};
}

} // namespace

MXC_ONNX_CONVERTERS(sequence) {
    add_converter("ConcatFromSequence", concat_from_sequence, 11);
    add_converter("Optional", optional_op, 15);
    add_converter("OptionalGetElement", optional_get_element, 15);
    add_converter("OptionalHasElement", optional_has_element, 15);
    add_converter("SequenceAt", sequence_at, 11);
    add_converter("SequenceConstruct", sequence_construct, 11);
    add_converter("SequenceEmpty", sequence_empty, 11);
    add_converter("SequenceErase", sequence_erase, 11);
    add_converter("SequenceInsert", sequence_insert, 11);
    add_converter("SequenceLength", sequence_length, 11);
    add_converter("SequenceMap", sequence_map, 17);
    add_converter("SplitToSequence", split_to_sequence, 11);
}

} // namespace mxc::onnx_detail
