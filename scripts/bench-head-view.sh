#!/usr/bin/env bash
# The head-view benchmark (io.floe.headview.bench.HeadViewBench): loadTable latency of a 100k-record head (cold,
# warm, incremental), missed records, and plain-consumer / plain-catalog baselines, merged into the report JSON
# under "head_view". Usage: scripts/bench-head-view.sh [report.json] [quick|full]. Run by `make bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
report="${1:-target/bench/report.json}"
mode="${2:-full}"
MVN="${MVN:-mvn -B -ntp}"
# Compiles head-view's tests with the modules it needs (reactor, nothing installed) and writes each module's test
# classpath to its own target/bench-classpath.txt.
$MVN -q -pl head-view -am test-compile dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile=target/bench-classpath.txt
heap=2g
[ "$mode" = quick ] && heap=1g
java -Xmx$heap ${BENCH_JAVA_OPTS:-} -cp "head-view/target/test-classes:head-view/target/classes:$(cat head-view/target/bench-classpath.txt)" \
  io.floe.headview.bench.HeadViewBench "$report" "$mode"
