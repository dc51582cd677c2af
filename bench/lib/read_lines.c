/* bench: the same loop as read_lines.br in C: fgets and strtod. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int reps = argc > 2 ? atoi(argv[2]) : 5;
    double total = 0.0;
    char line[512];
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        FILE *f = fopen(argv[1], "r");
        if (!f)
            return 1;
        total = 0.0;
        while (fgets(line, sizeof line, f))
            total += strtod(line, NULL);
        fclose(f);
        printf("seconds %.6f\n", now() - t0);
    }
    printf("result %.17g\n", total);
    return 0;
}
