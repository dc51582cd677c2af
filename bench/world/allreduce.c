/* allreduce.c: the MPI peer of harmonic.br and dot.br. Each rank sums its
 * contiguous block of 0..n with a plain loop (strict IEEE, left to right),
 * then MPI_Allreduce(MPI_SUM) combines the ranks' partial sums, in whatever
 * order the MPI library picks. Built with -DDOT for dot.br's terms, and with
 * -DACC=8 the loop keeps 8 accumulators (i % 8), which the compiler can
 * vectorise: what a C programmer tuning the loop would write. Timed
 * like the Brine programs: a barrier, then the local loop and the
 * Allreduce; rank 0 prints `seconds T` per rep and `result` with 17 digits. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "../workloads/bench.h"

static double term(long i) {
#ifdef DOT
    return ((double)(i % 13) * 0.25 - 1.5) * (1.0 / (double)(i + 1));
#else
    return 1.0 / (double)(i + 1);
#endif
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *a = getenv("BENCH_N");
    long n = a && *a ? atol(a) : 100000000L;
    long per = n / size, extra = n % size;
    long lo = per * rank + (rank < extra ? rank : extra);
    long hi = lo + per + (rank < extra ? 1 : 0);
    double total = 0;
    int R = reps();
    for (int rep = 0; rep <= R; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
#ifdef ACC
        double acc[ACC] = {0}, s = 0;
        long i = lo;
        for (; i + ACC <= hi; i += ACC)
            for (int j = 0; j < ACC; j++) acc[j] += term(i + j);
        for (; i < hi; i++) acc[0] += term(i);
        for (int j = 0; j < ACC; j++) s += acc[j];
#else
        double s = 0;
        for (long i = lo; i < hi; i++) s += term(i);
#endif
        MPI_Allreduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (rep > 0 && rank == 0) printf("seconds %.9f\n", now() - t0);
    }
    if (rank == 0) printf("result %.17g\n", total);
    MPI_Finalize();
    return 0;
}
