// What fma_guard_selftest.sh compiles with -mfma -ffp-contract=fast: a multiply-add that becomes vfmadd.
void fused(double* a, const double* b, const double* c, int n) {
  for (int i = 0; i < n; ++i) a[i] = a[i] * b[i] + c[i];
}
