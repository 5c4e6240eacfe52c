// ONNX converters for signal processing: the window functions and MelWeightMatrix (functions
// of constants: computed at import into literals), DFT and STFT (a product with a constant
// DFT matrix: `dot` on every target).
#include "compiler/onnx_node.hpp"
#include "ir/error.hpp"

#include <cmath>
#include <numbers>

namespace mxc::onnx_detail {
namespace {

using outputs = std::vector<instruction*>;
using ints = std::vector<int64_t>;

// A literal of element type t holding `values` (computed in double, rounded like a Cast).
instruction* typed_values(node_context& c, dtype t, ints lens, const std::vector<double>& values) {
    auto* l = c.lit(literal::from<double>(dtype::double_type, std::move(lens), values));
    if (t == dtype::double_type) return l;
    return c.add("convert", {l}, attrs({{"target_type", std::string(dtype_name(t))}}));
}

// The element type named by attribute `output_datatype` (an ONNX TensorProto.DataType).
dtype output_datatype(node_context& c, int64_t dflt) {
    auto v = c.attr_int("output_datatype", dflt);
    auto t = dtype_from_onnx(static_cast<int>(v));
    if (!t || t == dtype::bool_type) c.fail("output_datatype " + std::to_string(v) + " is not a supported numeric type");
    return *t;
}

// The one value of a constant scalar (or one-element) input.
double const_scalar(node_context& c, std::size_t i, const std::string& what) {
    auto v = c.const_input(i, what).to_doubles();
    if (v.size() != 1) c.fail("the " + what + " must hold one value, got " + std::to_string(v.size()));
    return v[0];
}

int64_t const_int_scalar(node_context& c, std::size_t i, const std::string& what) {
    auto v = c.const_ints(i, what);
    if (v.size() != 1) c.fail("the " + what + " must hold one value, got " + std::to_string(v.size()));
    return v[0];
}

// --- windows ---------------------------------------------------------------------------------

// Generalised cosine window: w[n] = sum_k (-1)^k a[k] cos(2 pi k n / N), N = size when
// periodic, size - 1 when symmetric.
converter cosine_window(std::vector<double> a) {
    return [a](node_context& c) -> outputs {
        int64_t size = const_int_scalar(c, 0, "window size");
        if (size < 0) c.fail("the window size must not be negative, got " + std::to_string(size));
        double denom = static_cast<double>(c.attr_int("periodic", 1) ? size : size - 1);
        std::vector<double> w(static_cast<std::size_t>(size));
        for (int64_t n = 0; n < size; ++n) {
            double v = 0, sign = 1;
            for (std::size_t k = 0; k < a.size(); ++k, sign = -sign)
                v += sign * a[k] * std::cos(2 * std::numbers::pi * static_cast<double>(k) * static_cast<double>(n) / denom);
            w[static_cast<std::size_t>(n)] = v;
        }
        return {typed_values(c, output_datatype(c, 1), {size}, w)};
    };
}

// --- MelWeightMatrix -------------------------------------------------------------------------

// [dft_length / 2 + 1, num_mel_bins] triangular filters between mel-spaced frequency bins (the
// ONNX reference: num_mel_bins + 2 points spaced by (high - low) / (num_mel_bins + 2) in mel,
// mapped to bins floor((dft_length + 1) * hz / sample_rate)).
outputs mel_weight_matrix(node_context& c) {
    int64_t mels = const_int_scalar(c, 0, "num_mel_bins");
    int64_t dft_length = const_int_scalar(c, 1, "dft_length");
    int64_t rate = const_int_scalar(c, 2, "sample_rate");
    double lo = const_scalar(c, 3, "lower_edge_hertz"), hi = const_scalar(c, 4, "upper_edge_hertz");
    if (mels <= 0 || dft_length <= 0 || rate <= 0)
        c.fail("num_mel_bins, dft_length and sample_rate must be positive");
    int64_t spectrogram_bins = dft_length / 2 + 1;
    auto mel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
    double low_mel = mel(lo), step = (mel(hi) - low_mel) / static_cast<double>(mels + 2);
    ints bins;
    for (int64_t i = 0; i < mels + 2; ++i) {
        double hz = 700 * (std::pow(10.0, (static_cast<double>(i) * step + low_mel) / 2595) - 1);
        bins.push_back(static_cast<int64_t>(std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(rate))));
        if (bins.back() < 0 || bins.back() >= spectrogram_bins)
            c.fail("mel point " + std::to_string(i) + " falls in frequency bin " + std::to_string(bins.back()) +
                   ", outside the " + std::to_string(spectrogram_bins) + " spectrogram bins");
    }
    std::vector<double> w(static_cast<std::size_t>(spectrogram_bins * mels), 0.0);
    auto at = [&](int64_t bin, int64_t m) -> double& { return w[static_cast<std::size_t>(bin * mels + m)]; };
    for (int64_t m = 0; m < mels; ++m) {
        int64_t left = bins[static_cast<std::size_t>(m)], center = bins[static_cast<std::size_t>(m + 1)],
                right = bins[static_cast<std::size_t>(m + 2)];
        if (center == left) at(center, m) = 1;
        for (int64_t j = left; center > left && j <= center; ++j)
            at(j, m) = static_cast<double>(j - left) / static_cast<double>(center - left);
        for (int64_t j = center; j < right; ++j)
            at(j, m) = static_cast<double>(right - j) / static_cast<double>(right - center);
    }
    return {typed_values(c, output_datatype(c, 1), {spectrogram_bins, mels}, w)};
}

// --- DFT -------------------------------------------------------------------------------------

struct dft_spec {
    int64_t axis = 0;   // the signal axis of x (not the last one)
    int64_t length = 0; // the transform length N (dft_length), 0: the axis length
    bool inverse = false;
    bool onesided = false;
};

// The DFT of x [..., n (at axis), ..., c] (c = 1 real, 2 complex) as one `dot`: the axis and c
// are moved last and flattened to n*c, multiplied by a constant [n*c, K*oc] matrix that does
// the zero padding / truncation to N, the transform (forward, inverse with 1/N) and the
// onesided cut, then put back. Output [..., K (at axis), ..., oc]: K = N/2+1 for a onesided
// forward transform; an inverse onesided transform reads the half spectrum n, gives N real
// values (oc = 1; N defaults to 2(n-1)) as numpy's irfft.
instruction* dft(node_context& c, instruction* x, dft_spec s) {
    auto lens = x->result.lens;
    int64_t r = static_cast<int64_t>(lens.size());
    if (r < 2) c.fail("the input must have rank >= 2 (signal dims and a last dim of 1 or 2), got " + to_string(lens));
    int64_t ch = lens.back();
    if (ch != 1 && ch != 2) c.fail("the last dim must be 1 (real) or 2 (complex), got " + std::to_string(ch));
    if (s.axis < 0 || s.axis >= r - 1) c.fail("axis " + std::to_string(s.axis) + " is out of range for input " + to_string(lens));
    if (!is_floating(x->result.type)) c.fail("the input must be a float tensor");
    int64_t n = lens[static_cast<std::size_t>(s.axis)];
    bool half_in = s.inverse && s.onesided;
    int64_t N = s.length > 0 ? s.length : (half_in ? 2 * (n - 1) : n);
    if (N <= 0) c.fail("the DFT length must be positive, got " + std::to_string(N));
    int64_t K = s.onesided && !s.inverse ? N / 2 + 1 : N;
    int64_t oc = half_in ? 1 : 2;

    int64_t entries = checked_mul(checked_mul(n * ch, oc), K);
    if (entries > (int64_t{1} << 26))
        c.fail("the DFT matrix for " + std::to_string(n) + " inputs and " + std::to_string(K) + " outputs is too large");
    // M[(j, ci), (o, k)]: input entry j (channel ci) into output entry k (channel o).
    std::vector<double> m(static_cast<std::size_t>(n * ch * oc * K), 0.0);
    auto at = [&](int64_t j, int64_t ci, int64_t o, int64_t k) -> double& {
        return m[static_cast<std::size_t>(((j * ch + ci) * oc + o) * K + k)];
    };
    double scale = s.inverse ? 1.0 / static_cast<double>(N) : 1.0, sign = s.inverse ? 1.0 : -1.0;
    for (int64_t j = 0; j < n; ++j) {
        for (int64_t k = 0; k < K; ++k) {
            // exp(sign * 2 pi i j k / N), j k reduced mod N for accuracy.
            double t = 2 * std::numbers::pi * static_cast<double>((j * k) % N) / static_cast<double>(N);
            double cs = std::cos(t) * scale, sn = sign * std::sin(t) * scale;
            if (half_in) {
                // y[k] = 1/N sum_j w_j (re_j cos - im_j sin), j <= N/2; w = 1 at 0 and N/2, else 2.
                if (j > N / 2) continue;
                double w = (j == 0 || 2 * j == N) ? 1.0 : 2.0;
                at(j, 0, 0, k) = w * cs;
                if (ch == 2) at(j, 1, 0, k) = -w * sn;
                continue;
            }
            if (j >= N) continue; // truncated
            // (re + i im)(cs + i sn) = re cs - im sn + i (re sn + im cs)
            at(j, 0, 0, k) = cs;
            at(j, 0, 1, k) = sn;
            if (ch == 2) {
                at(j, 1, 0, k) = -sn;
                at(j, 1, 1, k) = cs;
            }
        }
    }
    auto* mat = typed_values(c, x->result.type, {n * ch, oc * K}, m);

    ints perm, other;
    for (int64_t i = 0; i < r - 1; ++i)
        if (i != s.axis) {
            perm.push_back(i);
            other.push_back(lens[static_cast<std::size_t>(i)]);
        }
    perm.push_back(s.axis);
    perm.push_back(r - 1);
    int64_t rows = 1;
    for (auto d : other) rows = checked_mul(rows, d);
    auto* xt = c.add("transpose", {x}, attrs({{"permutation", perm}}));
    auto* y = c.add("dot", {c.reshape(xt, {rows, n * ch}), mat});
    auto ylens = other;
    ylens.push_back(oc);
    ylens.push_back(K);
    y = c.reshape(y, ylens);
    ints back;
    for (int64_t i = 0; i < r - 1; ++i) back.push_back(i < s.axis ? i : i == s.axis ? r - 1 : i - 1);
    back.push_back(r - 2);
    return c.add("transpose", {y}, attrs({{"permutation", back}}));
}

outputs dft_op(node_context& c) {
    auto* x = c.input(0);
    int64_t r = static_cast<int64_t>(x->result.rank());
    dft_spec s;
    s.inverse = c.attr_int("inverse", 0) != 0;
    s.onesided = c.attr_int("onesided", 0) != 0;
    int64_t axis = c.opset >= 20 ? -2 : 1;
    if (c.opset >= 20 && c.has_input(2)) axis = const_int_scalar(c, 2, "axis");
    else if (c.opset < 20) axis = c.attr_int("axis", 1);
    if (axis < -r || axis >= r - 1 || axis == -1)
        c.fail("axis " + std::to_string(axis) + " is out of range: the last dim holds the complex parts");
    s.axis = axis < 0 ? axis + r : axis;
    if (c.has_input(1)) {
        s.length = const_int_scalar(c, 1, "dft_length");
        if (s.length <= 0) c.fail("dft_length must be positive, got " + std::to_string(s.length));
    }
    return {dft(c, x, s)};
}

// --- STFT ------------------------------------------------------------------------------------

// signal [batch, L, c], frame_step, window [W] (optional), frame_length (optional) ->
// [batch, frames, K, 2]: frame f is signal[:, f*step : f*step + W] times the window, then its
// DFT (K = W/2+1 when onesided).
outputs stft(node_context& c) {
    auto* x = c.input(0);
    auto& lens = x->result.lens;
    if (lens.size() != 3 || (lens[2] != 1 && lens[2] != 2))
        c.fail("the signal must be [batch, length, 1 or 2], got " + to_string(lens));
    int64_t step = const_int_scalar(c, 1, "frame_step");
    if (step <= 0) c.fail("frame_step must be positive, got " + std::to_string(step));
    instruction* window = c.has_input(2) ? c.input(2) : nullptr;
    int64_t length = 0;
    if (c.has_input(3)) length = const_int_scalar(c, 3, "frame_length");
    if (window) {
        if (window->result.rank() != 1) c.fail("the window must be a vector, got " + to_string(window->result.lens));
        int64_t w = window->result.lens[0];
        if (length > 0 && length != w)
            c.fail("frame_length " + std::to_string(length) + " differs from the window length " + std::to_string(w));
        length = w;
        if (window->result.type != x->result.type) c.fail("the window's element type differs from the signal's");
    }
    if (length <= 0) c.fail("needs a window or a positive frame_length");
    if (length > lens[1]) c.fail("frame length " + std::to_string(length) + " exceeds the signal length " + std::to_string(lens[1]));
    int64_t frames = (lens[1] - length) / step + 1;
    ints idx;
    for (int64_t f = 0; f < frames; ++f)
        for (int64_t j = 0; j < length; ++j) idx.push_back(f * step + j);
    auto* ind = c.lit(literal::from<int64_t>(dtype::int64_type, {frames, length}, idx));
    auto* framed = c.add("gather", {x, ind}, attrs({{"axis", int64_t{1}}})); // [batch, frames, W, c]
    if (window) {
        auto* wb = c.broadcast_to(c.reshape(window, {1, 1, length, 1}), framed->result.lens);
        framed = c.add("mul", {framed, wb});
    }
    dft_spec s;
    s.axis = 2;
    s.length = length;
    s.onesided = c.attr_int("onesided", 1) != 0;
    return {dft(c, framed, s)};
}

} // namespace

MXC_ONNX_CONVERTERS(signal) {
    add_converter("HannWindow", cosine_window({0.5, 0.5}), 17);
    add_converter("HammingWindow", cosine_window({25.0 / 46.0, 21.0 / 46.0}), 17);
    add_converter("BlackmanWindow", cosine_window({0.42, 0.5, 0.08}), 17);
    add_converter("MelWeightMatrix", mel_weight_matrix, 17);
    add_converter("DFT", dft_op, 17);
    add_converter("STFT", stft, 17);
}

} // namespace mxc::onnx_detail
