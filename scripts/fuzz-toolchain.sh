# The fuzz step's tools, pinned (sourced by scripts/fuzz-run.sh and
# scripts/fuzz-campaign.sh): cargo-fuzz at CARGO_FUZZ_VERSION, and the nightly
# whose rustc is FUZZ_NIGHTLY_RUSTC (libFuzzer and the sanitizers need a
# nightly; a newer one may change instrumentation, and so what a bounded run
# finds). `fuzz_toolchain` installs what is missing and sets FUZZ_TOOLCHAIN,
# the `cargo +TOOLCHAIN` to build and run the targets with.
#
# The nightly is pinned by its rustc version string: the dated toolchain
# FUZZ_NIGHTLY when rustup has it, else an installed plain `nightly` that is
# that very build (how the project's machines carry it), else FUZZ_NIGHTLY
# is installed. To move the pin: install the new nightly, run the fuzz step,
# and put its `rustc --version` and dated name here.
CARGO_FUZZ_VERSION=0.13.2
FUZZ_NIGHTLY=nightly-2026-05-20
FUZZ_NIGHTLY_RUSTC="rustc 1.97.0-nightly (e50aa6fba 2026-05-19)"

fuzz_toolchain() {
  local have
  have=$(cargo fuzz --version 2>/dev/null | awk '{print $2}' || true)
  if [ "$have" != "$CARGO_FUZZ_VERSION" ]; then
    echo "fuzz: cargo install cargo-fuzz $CARGO_FUZZ_VERSION (have: ${have:-none})"
    cargo install --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"
  fi
  if [ "$(rustup run "$FUZZ_NIGHTLY" rustc --version 2>/dev/null)" = "$FUZZ_NIGHTLY_RUSTC" ]; then
    FUZZ_TOOLCHAIN=$FUZZ_NIGHTLY
  elif [ "$(rustup run nightly rustc --version 2>/dev/null)" = "$FUZZ_NIGHTLY_RUSTC" ]; then
    FUZZ_TOOLCHAIN=nightly
  else
    echo "fuzz: rustup toolchain install $FUZZ_NIGHTLY (the pinned nightly: $FUZZ_NIGHTLY_RUSTC)"
    rustup toolchain install "$FUZZ_NIGHTLY" --profile minimal
    have=$(rustup run "$FUZZ_NIGHTLY" rustc --version)
    if [ "$have" != "$FUZZ_NIGHTLY_RUSTC" ]; then
      echo "fuzz: $FUZZ_NIGHTLY is '$have', not the pinned '$FUZZ_NIGHTLY_RUSTC'" >&2
      return 1
    fi
    FUZZ_TOOLCHAIN=$FUZZ_NIGHTLY
  fi
  echo "fuzz: cargo-fuzz $CARGO_FUZZ_VERSION, +$FUZZ_TOOLCHAIN ($FUZZ_NIGHTLY_RUSTC)"
}
