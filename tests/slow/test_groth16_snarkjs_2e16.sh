#!/usr/bin/env bash
# Part (b) of tests/interop/test_groth16_snarkjs.sh at 2^16 constraints (the issue's size): our setup's
# zkey, our proof verified by snarkjs and noble, bit-exact with snarkjs for fixed r, s. About a minute
# of snarkjs time on 2 cores, hence the slow label.
exec env SIZE=16 ONLY_B=1 bash "$(dirname "$0")/../interop/test_groth16_snarkjs.sh" "$1"
