/* tuple_return.c: tuple_return.br as a person would write it in C: the
 * step returns a struct by value. */
#include "../workloads/bench.h"
#include <stdint.h>

typedef struct { double x; int64_t k; } step_t;

static step_t step(double x, int64_t k)
{
    if (k % 2 == 0) return (step_t){x * 0.5 + 1.0, k / 2};
    return (step_t){x * 0.25 + 2.0, 3 * k + 1};
}

static step_t walk(int64_t n)
{
    double x = 0.0;
    int64_t total = 0;
    for (int64_t i = 1; i < n; i++) {
        int64_t k = i, steps = 0;
        while (k != 1 && steps < 8) {
            step_t s = step(x, k);
            x = s.x;
            k = s.k;
            steps++;
        }
        total += steps;
    }
    return (step_t){x, total};
}

int main(void)
{
    int r = reps();
    step_t res = {0, 0};
    for (int rep = 0; rep <= r; rep++) {
        double t0 = now();
        res = walk(2000000);
        if (rep > 0) printf("seconds %.9f\n", now() - t0);
    }
    printf("result %.17g %lld\n", res.x, (long long)res.k);
    return 0;
}
