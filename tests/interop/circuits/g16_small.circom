pragma circom 2.0.0;
// Groth16 interop circuit: public inputs k, x and a public output; coefficients other than 1
// (3k, -7x, constants) so the zkey coefficient section and the IC points are exercised.
template G16(N) {
    signal input k;
    signal input x;
    signal input a[N];
    signal output out;
    signal acc[N + 1];
    signal t[N];
    acc[0] <== x;
    for (var i = 0; i < N; i++) {
        t[i] <== a[i] * (acc[i] + 3 * k + i);
        acc[i + 1] <== t[i] * (a[i] - 7 * x) + 5;
    }
    out <== acc[N] * k;
}
component main {public [k, x]} = G16(20);
