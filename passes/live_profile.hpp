// Bytes live at each instruction, for the memory planner: a segment tree with range add and
// range max, so "add this block's bytes over [first, last]" and "the most bytes live over
// [first, last]" (the lower bound when taken over everything) are O(log n).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace mxc {

class live_profile {
public:
    explicit live_profile(int instructions) : n_(std::max(1, instructions)), max_(4 * n_, 0), add_(4 * n_, 0) {}

    void add(int first, int last, int64_t bytes) { add(1, 0, n_ - 1, first, last, bytes); }
    int64_t max(int first, int last) const { return max(1, 0, n_ - 1, first, last); }
    int64_t max() const { return max_[1]; }

private:
    int n_;
    std::vector<int64_t> max_, add_; // max_[v] includes add_[v] (the adds that cover v's whole range)

    void add(int v, int lo, int hi, int first, int last, int64_t bytes) {
        if (last < lo || hi < first) return;
        if (first <= lo && hi <= last) {
            max_[v] += bytes;
            add_[v] += bytes;
            return;
        }
        int mid = (lo + hi) / 2;
        add(2 * v, lo, mid, first, last, bytes);
        add(2 * v + 1, mid + 1, hi, first, last, bytes);
        max_[v] = add_[v] + std::max(max_[2 * v], max_[2 * v + 1]);
    }
    int64_t max(int v, int lo, int hi, int first, int last) const {
        if (last < lo || hi < first) return INT64_MIN / 2;
        if (first <= lo && hi <= last) return max_[v];
        int mid = (lo + hi) / 2;
        return add_[v] + std::max(max(2 * v, lo, mid, first, last), max(2 * v + 1, mid + 1, hi, first, last));
    }
};

} // namespace mxc
