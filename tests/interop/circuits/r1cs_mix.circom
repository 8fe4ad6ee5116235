pragma circom 2.0.0;

// A small circuit touching every wire class and constraint shape the r1cs reader must handle:
// public output, public inputs, private inputs, internal signals, linear constraints (empty A/B),
// coefficients != 1 (circom writes r-1 for a*b=c), a hint signal (inv) and a constant term.
template Mix(N) {
    signal input x;
    signal input k;
    signal input a[N];
    signal output y;

    signal t[N + 1];
    t[0] <== x + 7;
    for (var i = 0; i < N; i++) {
        t[i + 1] <== t[i] * a[i] + 3 * k + i;
    }

    signal inv;
    signal isz;
    inv <-- k != 0 ? 1 / k : 0;
    isz <== 1 - k * inv;
    k * isz === 0;

    signal sq;
    sq <== a[0] * a[N - 1];
    y <== t[N] + 2 * sq + isz;
}

component main {public [x, k]} = Mix(6);
