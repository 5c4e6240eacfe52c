// CHECK(call): a failed hip call prints the error and ends the test program (the standalone
// kernel tests in test/emu, built for the emulator, sm_90 and gfx90a by test/unit/test_mma.cpp).
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                 \
    do {                                                                         \
        if ((x) != hipSuccess) {                                                 \
            printf("FAIL: %s: %s\n", #x, hipGetErrorString(hipGetLastError())); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)
