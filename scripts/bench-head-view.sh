#!/usr/bin/env bash
# The head-view benchmark (io.floe.headview.bench.HeadViewBench): loadTable latency of a 100k-record head (cold,
# warm, incremental), missed records, and plain-consumer / plain-catalog baselines, merged into the report JSON
# under "head_view". Usage: scripts/bench-head-view.sh [report.json] [quick|full]. Run by `make bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
report="${1:-target/bench/report.json}"
mode="${2:-full}"
MVN="${MVN:-mvn -B -ntp}"
# Builds the benchmarks module with the modules it needs (reactor, nothing installed) and writes its runtime
# classpath (unless `make bench` just did).
cp_file=target/bench/classpath.txt
if [ ! -f benchmarks/target/classes/io/floe/headview/bench/HeadViewBench.class ] || [ ! -f "$cp_file" ]; then
  mkdir -p target/bench
  $MVN -q -pl benchmarks -am -DskipTests package dependency:build-classpath \
    -Dmdep.includeScope=runtime -Dmdep.outputFile="$PWD/$cp_file"
fi
heap=2g
[ "$mode" = quick ] && heap=1g
java -Xmx$heap ${BENCH_JAVA_OPTS:-} -cp "benchmarks/target/classes:$(cat "$cp_file")" \
  io.floe.headview.bench.HeadViewBench "$report" "$mode"
