#include "passes/memory_report.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <sstream>
#include <unordered_map>

namespace mxc {
namespace {

std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

// the planner's arena (the buffers, without the kernels' scratch) over the lower bound
double ratio(const memory_plan& p) {
    return p.lower_bound_bytes > 0 ? static_cast<double>(p.arena_bytes - p.scratch_bytes) / static_cast<double>(p.lower_bound_bytes)
                                   : 1.0;
}

std::string xml_escape(const std::string& s) {
    std::string r;
    for (char c : s) {
        if (c == '<') r += "&lt;";
        else if (c == '>') r += "&gt;";
        else if (c == '&') r += "&amp;";
        else if (c == '"') r += "&quot;";
        else r += c;
    }
    return r;
}

std::string json_escape(const std::string& s) {
    std::string r;
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') r += std::string("\\") + static_cast<char>(c);
        else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            r += buf;
        } else r += static_cast<char>(c);
    }
    return r;
}

// Names as the text form prints them, with the ONNX node when known.
std::vector<std::string> buffer_names(const module& m, const memory_plan& p) {
    auto names = instruction_names(m);
    std::unordered_map<const instruction*, std::string> name_of;
    std::size_t k = 0;
    for (auto& ins : m.instructions) name_of[&ins] = names[k++];
    std::vector<std::string> r;
    for (auto& b : p.buffers) {
        auto it = name_of.find(b.ins);
        std::string n = (it == name_of.end() ? "?" : it->second) + " " + b.ins->op;
        if (!b.ins->origin.empty()) n += " (" + b.ins->origin + ")";
        r.push_back(n);
    }
    return r;
}

std::vector<std::size_t> biggest_first(const memory_plan& p, int biggest) {
    std::vector<std::size_t> order(p.buffers.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return p.buffers[a].bytes > p.buffers[b].bytes; });
    order.resize(std::min(order.size(), static_cast<std::size_t>(std::max(0, biggest))));
    return order;
}

std::string sharing(const memory_plan& p, const buffer_plan& b) {
    std::string s;
    if (b.in_place_of >= 0) s += " in place of buffer " + std::to_string(b.in_place_of);
    if (b.slice_of >= 0) s += " slice of buffer " + std::to_string(b.slice_of) + " at +" + std::to_string(b.slice_offset);
    (void)p;
    return s;
}

// "half_type 45056 bytes, float_type 4096 bytes": the buffers' bytes per element type.
std::string bytes_by_type(const memory_plan& p) {
    std::vector<int64_t> bytes(static_cast<std::size_t>(dtype_count), 0);
    for (auto& b : p.buffers) bytes[static_cast<std::size_t>(b.ins->result.type)] += b.bytes;
    std::string s;
    for (int t = 0; t < dtype_count; ++t)
        if (bytes[static_cast<std::size_t>(t)] > 0)
            s += (s.empty() ? "" : ", ") + std::string(dtype_name(static_cast<dtype>(t))) + " " +
                 std::to_string(bytes[static_cast<std::size_t>(t)]) + " bytes";
    return s.empty() ? "none" : s;
}

} // namespace

std::string memory_report_text(const module& m, const memory_plan& p, int64_t weights_bytes, int biggest) {
    std::ostringstream o;
    int in_place = 0, slices = 0;
    for (auto& b : p.buffers) {
        in_place += b.in_place_of >= 0;
        slices += b.slice_of >= 0;
    }
    o << "memory plan of '" << m.name << "' (" << p.buffers.size() << " buffers, " << p.alignment << "-byte aligned)\n";
    o << "  arena:           " << p.arena_bytes << " bytes";
    if (p.scratch_bytes > 0)
        o << " (buffers " << p.arena_bytes - p.scratch_bytes << ", kernel scratch " << p.scratch_bytes << ")";
    o << "\n";
    o << "  lower bound:     " << p.lower_bound_bytes << " bytes (the most bytes live at one instruction)\n";
    o << "  arena / bound:   " << fixed(ratio(p), 4) << "\n";
    o << "  naive sum:       " << p.naive_bytes << " bytes (one slot per buffer)\n";
    o << "  weights:         " << weights_bytes << " bytes\n";
    o << "  shared storage:  " << in_place << " in place, " << slices << " written into concat slices\n";
    o << "  buffers by type: " << bytes_by_type(p) << " (summed over buffers)\n";
    auto names = buffer_names(m, p);
    auto top = biggest_first(p, biggest);
    if (!top.empty()) o << "  biggest buffers (#, bytes, offset, interval, instruction):\n";
    for (auto i : top) {
        auto& b = p.buffers[i];
        o << "    #" << i << " " << b.bytes << " @" << b.offset << " [" << b.first << ", " << b.last << "] " << names[i]
          << sharing(p, b) << "\n";
    }
    return o.str();
}

std::string memory_report_json(const module& m, const memory_plan& p, int64_t weights_bytes, int biggest) {
    std::ostringstream o;
    o << "  \"arena_bytes\": " << p.arena_bytes << ",\n  \"arena_lower_bound_bytes\": " << p.lower_bound_bytes
      << ",\n  \"arena_naive_bytes\": " << p.naive_bytes << ",\n  \"kernel_scratch_bytes\": " << p.scratch_bytes
      << ",\n  \"weights_bytes\": " << weights_bytes
      << ",\n  \"arena_over_lower_bound\": " << fixed(ratio(p), 6) << ",\n  \"buffers\": " << p.buffers.size()
      << ",\n  \"biggest_buffers\": [";
    auto names = buffer_names(m, p);
    auto top = biggest_first(p, biggest);
    for (std::size_t k = 0; k < top.size(); ++k) {
        auto& b = p.buffers[top[k]];
        o << (k ? "," : "") << "\n    {\"buffer\": " << top[k] << ", \"name\": \"" << json_escape(names[top[k]])
          << "\", \"bytes\": " << b.bytes << ", \"offset\": " << b.offset << ", \"first\": " << b.first
          << ", \"last\": " << b.last << "}";
    }
    o << (top.empty() ? "]" : "\n  ]");
    return o.str();
}

std::string memory_plot_svg(const module& m, const memory_plan& p) {
    const double width = 1200, height = 700, left = 90, bottom = 40, top_margin = 30, right = 20;
    const double plot_w = width - left - right, plot_h = height - bottom - top_margin;
    const double n = std::max<double>(1, static_cast<double>(m.instructions.size()));
    const double arena = std::max<double>(1, static_cast<double>(p.arena_bytes));
    auto x = [&](double i) { return left + i / n * plot_w; };
    auto y = [&](double off) { return top_margin + plot_h - off / arena * plot_h; };
    auto names = buffer_names(m, p);
    std::ostringstream o;
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    o << "<title>memory plan of " << xml_escape(m.name) << "</title>\n";
    o << "<rect x=\"0\" y=\"0\" width=\"" << width << "\" height=\"" << height << "\" fill=\"white\"/>\n";
    o << "<text x=\"" << left << "\" y=\"18\">" << xml_escape(m.name) << ": arena " << p.arena_bytes << " bytes, lower bound "
      << p.lower_bound_bytes << " (ratio " << fixed(ratio(p), 4) << "), " << p.buffers.size() << " buffers</text>\n";
    // The lower bound as a dashed line; the arena is the top of the plot.
    o << "<line x1=\"" << left << "\" x2=\"" << left + plot_w << "\" y1=\"" << y(static_cast<double>(p.lower_bound_bytes))
      << "\" y2=\"" << y(static_cast<double>(p.lower_bound_bytes)) << "\" stroke=\"red\" stroke-dasharray=\"6,4\"/>\n";
    for (std::size_t i = 0; i < p.buffers.size(); ++i) {
        auto& b = p.buffers[i];
        if (b.bytes == 0) continue;
        unsigned hue = static_cast<unsigned>((i * 137u) % 360u);
        double x0 = x(b.first), x1 = x(b.last + 1), y0 = y(static_cast<double>(b.offset + b.bytes)),
               y1 = y(static_cast<double>(b.offset));
        o << "<rect x=\"" << fixed(x0, 2) << "\" y=\"" << fixed(y0, 2) << "\" width=\"" << fixed(std::max(0.5, x1 - x0), 2)
          << "\" height=\"" << fixed(std::max(0.5, y1 - y0), 2) << "\" fill=\"hsl(" << hue
          << ",60%,70%)\" fill-opacity=\"0.75\" stroke=\"black\" stroke-width=\"0.3\"><title>#" << i << " "
          << xml_escape(names[i]) << ": " << b.bytes << " bytes at " << b.offset << ", instructions [" << b.first << ", "
          << b.last << "]" << xml_escape(sharing(p, b)) << "</title></rect>\n";
    }
    o << "<rect x=\"" << left << "\" y=\"" << top_margin << "\" width=\"" << plot_w << "\" height=\"" << plot_h
      << "\" fill=\"none\" stroke=\"black\"/>\n";
    o << "<text x=\"" << left + plot_w / 2 << "\" y=\"" << height - 10 << "\" text-anchor=\"middle\">instruction (0 .. "
      << m.instructions.size() << ")</text>\n";
    o << "<text x=\"10\" y=\"" << top_margin + 10 << "\">" << p.arena_bytes << "</text>\n";
    o << "<text x=\"10\" y=\"" << top_margin + plot_h << "\">0</text>\n";
    o << "<text x=\"10\" y=\"" << top_margin + plot_h / 2 << "\">offset</text>\n";
    o << "</svg>\n";
    return o.str();
}

} // namespace mxc
