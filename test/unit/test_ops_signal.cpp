// Signal, recurrent and training ops of the ONNX importer (compiler/onnx_ops_signal.cpp,
// onnx_ops_recurrent.cpp, onnx_ops_training.cpp, BatchNormalization/Dropout in training mode):
// one-node models built here, imported, run with the reference evaluator and compared with
// values worked out by hand.
#include "compiler/onnx_import.hpp"
#include "ir/error.hpp"
#include "ir/eval.hpp"

#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

using namespace mxc;

namespace {

struct tensor_in {
    std::string name;
    std::vector<int64_t> dims;
    std::vector<double> values;
    int type = onnx::TensorProto::FLOAT;
    bool initializer = false; // a constant of the model, else a graph input fed at run time
};

// A one-node model: inputs (graph inputs or initializers; an empty name leaves a slot out),
// `outputs` output names, attributes added by `attrs`.
struct one_node {
    onnx::ModelProto model;
    onnx::NodeProto* node;
    std::map<std::string, literal> feed;

    one_node(const std::string& op, const std::vector<tensor_in>& inputs, int outputs, int64_t opset = 22,
             const std::string& domain = "") {
        model.set_ir_version(8);
        auto* o = model.add_opset_import();
        o->set_domain(domain);
        o->set_version(opset);
        auto* g = model.mutable_graph();
        g->set_name("g");
        node = g->add_node();
        node->set_op_type(op);
        node->set_domain(domain);
        for (auto& in : inputs) {
            node->add_input(in.name);
            if (in.name.empty()) continue;
            if (in.initializer) {
                auto* t = g->add_initializer();
                fill(*t, in);
                continue;
            }
            auto* vi = g->add_input();
            vi->set_name(in.name);
            auto* tt = vi->mutable_type()->mutable_tensor_type();
            tt->set_elem_type(in.type);
            auto* sh = tt->mutable_shape(); // present even for a scalar
            for (auto d : in.dims) sh->add_dim()->set_dim_value(d);
            feed[in.name] = value(in);
        }
        for (int k = 0; k < outputs; ++k) {
            node->add_output("y" + std::to_string(k));
            g->add_output()->set_name("y" + std::to_string(k));
        }
    }
    static void fill(onnx::TensorProto& t, const tensor_in& in) {
        t.set_name(in.name);
        t.set_data_type(in.type);
        for (auto d : in.dims) t.add_dims(d);
        for (auto v : in.values) {
            if (in.type == onnx::TensorProto::FLOAT) t.add_float_data(static_cast<float>(v));
            else if (in.type == onnx::TensorProto::INT64) t.add_int64_data(static_cast<int64_t>(v));
            else t.add_int32_data(static_cast<int32_t>(v));
        }
    }
    static literal value(const tensor_in& in) {
        if (in.type == onnx::TensorProto::FLOAT)
            return literal::from<float>(dtype::float_type, in.dims, std::vector<float>(in.values.begin(), in.values.end()));
        if (in.type == onnx::TensorProto::INT64) {
            std::vector<int64_t> v;
            for (auto x : in.values) v.push_back(static_cast<int64_t>(x));
            return literal::from<int64_t>(dtype::int64_type, in.dims, v);
        }
        std::vector<int32_t> v;
        for (auto x : in.values) v.push_back(static_cast<int32_t>(x));
        return literal::from<int32_t>(dtype::int32_type, in.dims, v);
    }
    one_node& attr_i(const std::string& n, int64_t v) {
        auto* a = node->add_attribute();
        a->set_name(n);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(v);
        return *this;
    }
    one_node& attr_f(const std::string& n, float v) {
        auto* a = node->add_attribute();
        a->set_name(n);
        a->set_type(onnx::AttributeProto::FLOAT);
        a->set_f(v);
        return *this;
    }
    one_node& attr_s(const std::string& n, const std::string& v) {
        auto* a = node->add_attribute();
        a->set_name(n);
        a->set_type(onnx::AttributeProto::STRING);
        a->set_s(v);
        return *this;
    }
    one_node& attr_strings(const std::string& n, const std::vector<std::string>& v) {
        auto* a = node->add_attribute();
        a->set_name(n);
        a->set_type(onnx::AttributeProto::STRINGS);
        for (auto& s : v) a->add_strings(s);
        return *this;
    }

    program import() {
        std::string bytes;
        model.SerializeToString(&bytes);
        return import_onnx_bytes(bytes, "test model");
    }
    std::vector<literal> run() {
        auto p = import();
        verify(p.main());
        return evaluate(p.main(), feed);
    }
    std::string error_of() {
        try {
            import();
        } catch (const error& e) {
            return e.what();
        }
        return "";
    }
};

tensor_in constant(const std::string& name, std::vector<int64_t> dims, std::vector<double> v,
                   int type = onnx::TensorProto::FLOAT) {
    return {name, std::move(dims), std::move(v), type, true};
}
tensor_in input(const std::string& name, std::vector<int64_t> dims, std::vector<double> v) {
    return {name, std::move(dims), std::move(v)};
}
tensor_in int_scalar(const std::string& name, int64_t v) { return constant(name, {}, {static_cast<double>(v)}, onnx::TensorProto::INT64); }

void expect_values(const literal& got, const std::vector<int64_t>& lens, const std::vector<double>& want, double tol = 1e-5) {
    ASSERT_EQ(got.s.lens, lens);
    auto v = got.to_doubles();
    ASSERT_EQ(v.size(), want.size());
    for (std::size_t i = 0; i < v.size(); ++i) EXPECT_NEAR(v[i], want[i], tol * (1 + std::fabs(want[i]))) << "element " << i;
}

// --- windows and MelWeightMatrix --------------------------------------------------------------

TEST(signal, windows) {
    auto window = [](const std::string& op, int64_t size, int64_t periodic) {
        one_node n(op, {int_scalar("size", size)}, 1, 17);
        n.attr_i("periodic", periodic);
        return n.run().at(0);
    };
    // Hann: 0.5 - 0.5 cos(2 pi n / N), N = 4 (periodic) or 5 - 1 (symmetric).
    expect_values(window("HannWindow", 4, 1), {4}, {0, 0.5, 1, 0.5});
    expect_values(window("HannWindow", 5, 0), {5}, {0, 0.5, 1, 0.5, 0});
    // Hamming: 25/46 - 21/46 cos(2 pi n / 4).
    expect_values(window("HammingWindow", 4, 1), {4}, {4.0 / 46, 25.0 / 46, 1, 25.0 / 46});
    // Blackman: 0.42 - 0.5 cos(2 pi n / 4) + 0.08 cos(4 pi n / 4).
    expect_values(window("BlackmanWindow", 4, 1), {4}, {0, 0.34, 1, 0.34});
}

TEST(signal, window_output_datatype) {
    one_node n("HannWindow", {int_scalar("size", 2)}, 1, 17);
    n.attr_i("output_datatype", onnx::TensorProto::DOUBLE);
    auto y = n.run().at(0);
    EXPECT_EQ(y.s.type, dtype::double_type);
    expect_values(y, {2}, {0, 1});
}

TEST(signal, mel_weight_matrix) {
    // upper edge 700 Hz: mel(700) = 2595 log10(2); 2 + 2 points spaced a quarter of that apart are
    // 700 (2^(i/4) - 1) Hz = 0, 132.4, 289.9, 477.1 Hz, in bins floor(9 hz / 1000) = 0, 1, 2, 4.
    one_node n("MelWeightMatrix",
               {int_scalar("mels", 2), int_scalar("dft", 8), int_scalar("rate", 1000), constant("lo", {}, {0}),
                constant("hi", {}, {700})},
               1, 17);
    // Filter 0 rises over bins 0..1 and falls to bin 2; filter 1 rises 1..2 and falls over 2..4.
    expect_values(n.run().at(0), {5, 2}, {0, 0, 1, 0, 0, 1, 0, 0.5, 0, 0});
}

// --- DFT and STFT ------------------------------------------------------------------------------

TEST(signal, dft_forward_onesided_inverse) {
    // DFT of 1, 2, 3, 4: 10, -2 + 2i, -2, -2 - 2i.
    one_node full("DFT", {input("x", {1, 4, 1}, {1, 2, 3, 4})}, 1, 17);
    full.attr_i("axis", 1);
    expect_values(full.run().at(0), {1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2});

    one_node half("DFT", {input("x", {1, 4, 1}, {1, 2, 3, 4})}, 1, 17);
    half.attr_i("axis", 1).attr_i("onesided", 1);
    expect_values(half.run().at(0), {1, 3, 2}, {10, 0, -2, 2, -2, 0});

    one_node inv("DFT", {input("x", {1, 4, 2}, {10, 0, -2, 2, -2, 0, -2, -2})}, 1, 17);
    inv.attr_i("axis", 1).attr_i("inverse", 1);
    expect_values(inv.run().at(0), {1, 4, 2}, {1, 0, 2, 0, 3, 0, 4, 0});

    // The inverse of the half spectrum is the real signal (numpy's irfft).
    one_node irfft("DFT", {input("x", {1, 3, 2}, {10, 0, -2, 2, -2, 0}), {""}, int_scalar("axis", 1)}, 1, 20);
    irfft.attr_i("inverse", 1).attr_i("onesided", 1);
    expect_values(irfft.run().at(0), {1, 4, 1}, {1, 2, 3, 4});
}

TEST(signal, dft_length_pads_and_truncates) {
    // 1, 2 padded to 4: X[k] = 1 + 2 exp(-i pi k / 2) = 3, 1 - 2i, -1, 1 + 2i.
    one_node pad("DFT", {input("x", {2, 1}, {1, 2}), int_scalar("n", 4), int_scalar("axis", 0)}, 1, 20);
    expect_values(pad.run().at(0), {4, 2}, {3, 0, 1, -2, -1, 0, 1, 2});
    // 1, 2, 3 cut to 2: 3, -1.
    one_node cut("DFT", {input("x", {3, 1}, {1, 2, 3}), int_scalar("n", 2), int_scalar("axis", 0)}, 1, 20);
    expect_values(cut.run().at(0), {2, 2}, {3, 0, -1, 0});
}

TEST(signal, dft_on_a_middle_axis) {
    // x [2, 2, 1]: the DFT along axis 0 of the columns (1, 3) and (2, 4): (4, -2) and (6, -2).
    one_node n("DFT", {input("x", {2, 2, 1}, {1, 2, 3, 4}), {""}, int_scalar("axis", 0)}, 1, 20);
    expect_values(n.run().at(0), {2, 2, 2}, {4, 0, 6, 0, -2, 0, -2, 0});
}

TEST(signal, stft) {
    // Frames (1, 2) and (3, 4) (step 2, length 2), their 2-point DFTs: (3, -1) and (7, -1).
    one_node n("STFT", {input("x", {1, 4, 1}, {1, 2, 3, 4}), int_scalar("step", 2), {""}, int_scalar("len", 2)}, 1, 17);
    expect_values(n.run().at(0), {1, 2, 2, 2}, {3, 0, -1, 0, 7, 0, -1, 0});
    // A window (1, 0.5) scales the second sample of each frame: (2, 0) and (5, 1).
    one_node w("STFT", {input("x", {1, 4, 1}, {1, 2, 3, 4}), int_scalar("step", 2), constant("w", {2}, {1, 0.5})}, 1, 17);
    expect_values(w.run().at(0), {1, 2, 2, 2}, {2, 0, 0, 0, 5, 0, 1, 0});
}

TEST(signal, errors_are_one_line) {
    one_node bad_axis("DFT", {input("x", {1, 4, 1}, {1, 2, 3, 4})}, 1, 17);
    bad_axis.attr_i("axis", 2);
    auto msg = bad_axis.error_of();
    EXPECT_NE(msg.find("axis 2 is out of range"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos);
    one_node bad_last("DFT", {input("x", {1, 4, 3}, std::vector<double>(12, 0))}, 1, 17);
    msg = bad_last.error_of();
    EXPECT_NE(msg.find("last dim must be 1 (real) or 2 (complex)"), std::string::npos) << msg;
}

// --- recurrent nets ---------------------------------------------------------------------------

TEST(recurrent, rnn_forward_reverse_and_sequence_lens) {
    // H = relu(x w + h r): w = 1, r = 0.5. Batch 0: x = 1, 2 -> 1, 2.5; batch 1: x = 3, (4 past
    // its length 1) -> 3, then nothing (Y 0, Y_h 3).
    auto rnn = [](const std::string& dir, bool lens) {
        one_node n("RNN",
                   {input("X", {2, 2, 1}, {1, 3, 2, 4}), constant("W", {1, 1, 1}, {1}), constant("R", {1, 1, 1}, {0.5}),
                    {""}, lens ? constant("L", {2}, {2, 1}, onnx::TensorProto::INT32) : tensor_in{""}},
                   2);
        n.attr_i("hidden_size", 1).attr_s("direction", dir).attr_strings("activations", {"Relu"});
        return n.run();
    };
    auto y = rnn("forward", true);
    expect_values(y[0], {2, 1, 2, 1}, {1, 3, 2.5, 0});
    expect_values(y[1], {1, 2, 1}, {2.5, 3});
    // Reverse, full lengths: batch 0 runs x = 2 then 1: 2, then 1 + 1 = 2 (Y by time: 2, 2);
    // batch 1: 4, then 3 + 2 = 5 (Y by time: 5, 4).
    y = rnn("reverse", false);
    expect_values(y[0], {2, 1, 2, 1}, {2, 5, 2, 4});
    expect_values(y[1], {1, 2, 1}, {2, 5});
    // Reverse with lengths 2, 1: batch 1 only sees x = 3.
    y = rnn("reverse", true);
    expect_values(y[0], {2, 1, 2, 1}, {2, 3, 2, 0});
    expect_values(y[1], {1, 2, 1}, {2, 3});
}

TEST(recurrent, gru_and_lstm_cells) {
    // GRU with only the candidate weight (1): z = r = sigmoid(0) = 0.5, h~ = tanh(x),
    // H = 0.5 h~ + 0.5 H_prev.
    one_node gru("GRU", {input("X", {2, 1, 1}, {1, -1}), constant("W", {1, 3, 1}, {0, 0, 1}), constant("R", {1, 3, 1}, {0, 0, 0})}, 2);
    gru.attr_i("hidden_size", 1);
    double h1 = 0.5 * std::tanh(1.0), h2 = 0.5 * std::tanh(-1.0) + 0.5 * h1;
    auto y = gru.run();
    expect_values(y[0], {2, 1, 1, 1}, {h1, h2});
    // LSTM with only the cell weight (1): i = f = o = 0.5, C = 0.5 C_prev + 0.5 tanh(x),
    // H = 0.5 tanh(C); peepholes add p * C to i, f (C_prev) and o (C).
    one_node lstm("LSTM", {input("X", {1, 1, 1}, {1}), constant("W", {1, 4, 1}, {0, 0, 0, 1}), constant("R", {1, 4, 1}, {0, 0, 0, 0})}, 3);
    lstm.attr_i("hidden_size", 1);
    double c1 = 0.5 * std::tanh(1.0);
    y = lstm.run();
    expect_values(y[1], {1, 1, 1}, {0.5 * std::tanh(c1)});
    expect_values(y[2], {1, 1, 1}, {c1});
    one_node peep("LSTM",
                  {input("X", {1, 1, 1}, {1}), constant("W", {1, 4, 1}, {0, 0, 0, 1}), constant("R", {1, 4, 1}, {0, 0, 0, 0}),
                   {""}, {""}, {""}, constant("c0", {1, 1, 1}, {1}), constant("P", {1, 3}, {0, 2, 0})},
                  3);
    peep.attr_i("hidden_size", 1);
    double cp = 0.5 * 1 + 0.5 * std::tanh(1.0); // i, f unchanged (their peepholes are 0)
    double o = 1 / (1 + std::exp(-2 * cp));     // o sees 2 * C
    y = peep.run();
    expect_values(y[2], {1, 1, 1}, {cp});
    expect_values(y[1], {1, 1, 1}, {o * std::tanh(cp)});
}

TEST(recurrent, bidirectional_layout_1) {
    // RNN relu, w = 1, r = 1, x = 1, 2 (batch 1, layout 1: [batch, seq, I]): forward 1, 3;
    // reverse 2, 3 (Y by time: 3, 2).
    one_node n("RNN", {input("X", {1, 2, 1}, {1, 2}), constant("W", {2, 1, 1}, {1, 1}), constant("R", {2, 1, 1}, {1, 1})}, 2);
    n.attr_i("hidden_size", 1).attr_i("layout", 1).attr_s("direction", "bidirectional").attr_strings("activations", {"Relu", "Relu"});
    auto y = n.run();
    expect_values(y[0], {1, 2, 2, 1}, {1, 3, 3, 2}); // [batch, seq, dir, H]
    expect_values(y[1], {1, 2, 1}, {3, 3});          // [batch, dir, H]
}

TEST(recurrent, errors) {
    one_node n("LSTM", {input("X", {1, 1, 1}, {1}), constant("W", {1, 3, 1}, {0, 0, 0}), constant("R", {1, 4, 1}, {0, 0, 0, 0})}, 1);
    n.attr_i("hidden_size", 1);
    auto msg = n.error_of();
    EXPECT_NE(msg.find("W must be float_type {1, 4, 1}"), std::string::npos) << msg;
    one_node a("RNN", {input("X", {1, 1, 1}, {1}), constant("W", {1, 1, 1}, {1}), constant("R", {1, 1, 1}, {1})}, 1);
    a.attr_strings("activations", {"Swish"});
    msg = a.error_of();
    EXPECT_NE(msg.find("unknown activation function 'Swish'"), std::string::npos) << msg;
}

// --- training mode ----------------------------------------------------------------------------

TEST(training, batch_norm_training_mode) {
    // One channel holding 1, 2, 3, 4: mean 2.5, population variance 1.25; running stats with
    // momentum 0.9 from mean 0, var 1: 0.25 and 1.025.
    one_node n("BatchNormalization",
               {input("x", {2, 1, 2}, {1, 2, 3, 4}), constant("s", {1}, {2}), constant("b", {1}, {1}), constant("m", {1}, {0}),
                constant("v", {1}, {1})},
               3, 15);
    n.attr_i("training_mode", 1).attr_f("epsilon", 0);
    auto y = n.run();
    double k = 2 / std::sqrt(1.25);
    expect_values(y[0], {2, 1, 2}, {-1.5 * k + 1, -0.5 * k + 1, 0.5 * k + 1, 1.5 * k + 1});
    expect_values(y[1], {1}, {0.25});
    expect_values(y[2], {1}, {1.025});
}

TEST(training, dropout_training_ratio_zero_is_identity) {
    one_node n("Dropout", {input("x", {3}, {1, -2, 3}), constant("r", {}, {0}), constant("t", {}, {1}, onnx::TensorProto::BOOL)}, 2);
    auto y = n.run();
    expect_values(y[0], {3}, {1, -2, 3});
    EXPECT_EQ(y[1].s.type, dtype::bool_type);
    expect_values(y[1], {3}, {1, 1, 1});
    one_node random("Dropout", {input("x", {3}, {1, -2, 3}), constant("r", {}, {0.5}), constant("t", {}, {1}, onnx::TensorProto::BOOL)}, 1);
    auto msg = random.error_of();
    EXPECT_NE(msg.find("seed-dependent"), std::string::npos) << msg;
}

const char* const training_domain = "ai.onnx.preview.training";

TEST(training, adagrad) {
    // H' = 0 + 2^2 = 4; X' = 1 - 0.1 * 2 / (2 + 1e-6).
    one_node n("Adagrad", {input("R", {}, {0.1}), int_scalar("T", 0), input("X", {1}, {1}), input("G", {1}, {2}), input("H", {1}, {0})}, 2, 1,
               training_domain);
    auto y = n.run();
    expect_values(y[0], {1}, {1 - 0.1 * 2 / (2 + 1e-6)});
    expect_values(y[1], {1}, {4});
}

TEST(training, momentum_standard_and_nesterov) {
    auto run = [](const std::string& mode, int64_t t) {
        one_node n("Momentum", {input("R", {}, {0.1}), int_scalar("T", t), input("X", {1}, {1}), input("G", {1}, {2}), input("V", {1}, {1})},
                   2, 1, training_domain);
        n.attr_f("alpha", 0.5f).attr_f("beta", 0.25f).attr_s("mode", mode).attr_f("norm_coefficient", 0);
        return n.run();
    };
    // T = 0: beta counts as 1: V' = 0.5 + 2 = 2.5; X' = 1 - 0.1 * 2.5, or 1 - 0.1 (2 + 0.5 * 2.5).
    auto y = run("standard", 0);
    expect_values(y[1], {1}, {2.5});
    expect_values(y[0], {1}, {0.75});
    expect_values(run("nesterov", 0)[0], {1}, {0.675});
    // T = 1: V' = 0.5 + 0.25 * 2 = 1.
    expect_values(run("standard", 1)[1], {1}, {1});
}

TEST(training, adam) {
    // alpha 0.9, beta 0.999, T = 1: V' = 0.1, H' = 0.001, R' = 0.1 sqrt(0.001) / 0.1.
    one_node n("Adam",
               {input("R", {}, {0.1}), int_scalar("T", 1), input("X", {1}, {1}), input("G", {1}, {1}), input("V", {1}, {0}),
                input("H", {1}, {0})},
               3, 1, training_domain);
    auto y = n.run();
    double r = std::sqrt(0.001);
    expect_values(y[0], {1}, {1 - r * 0.1 / (std::sqrt(0.001) + 1e-6)});
    expect_values(y[1], {1}, {0.1});
    expect_values(y[2], {1}, {0.001});
}

TEST(training, domain_dispatch) {
    // A version of the training domain mxc does not convert is reported with its domain.
    one_node v2("Adagrad", {input("R", {}, {0.1}), int_scalar("T", 0), input("X", {1}, {1}), input("G", {1}, {2}), input("H", {1}, {0})}, 2, 2,
                training_domain);
    auto msg = v2.error_of();
    EXPECT_NE(msg.find("Adagrad in domain 'ai.onnx.preview.training'"), std::string::npos) << msg;
    // A default-domain op in a model that imports only the training domain is still an error.
    one_node relu("Relu", {input("x", {1}, {1})}, 1, 1, training_domain);
    relu.node->set_domain("");
    msg = relu.error_of();
    EXPECT_NE(msg.find("imports no opset of the default ONNX domain"), std::string::npos) << msg;
}

} // namespace
