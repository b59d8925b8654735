#!/usr/bin/env bash
# make demo: Floe end to end on this machine, nothing to install but Java 17 and Maven.
#
#   1. builds the plugin folder (make dist), Kafka 4.4.0's broker jars, S3Proxy's jars and the demo's Java steps
#   2. starts S3Proxy and a one-node KRaft broker (Kafka's own jars only, Floe from dist/ through
#      remote.log.storage.manager.class.path, config = broker-config/server.properties with free ports)
#   3. creates a tiered topic, produces 20,000 orders, prints tiering progress every second
#   4. consumes the topic from offset 0 (the old segments now exist only in the Iceberg table)
#   5. starts the head view (head-view/, a read-only Iceberg REST catalog), produces more orders and queries them
#      through it at once: tiered files + the live Kafka head, every acknowledged record exactly once
#   6. runs SQL over the table with Spark local + Iceberg, directly and through the head view (DEMO_SQL=0 skips
#      Spark: Iceberg's generic reader instead)
#   7. stops everything it started, on success, failure or Ctrl-C
#
# Environment: DEMO_DIR (default target/demo, wiped first), DEMO_SQL=0|1 (default 1), MVN.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
MVN=${MVN:-mvn -B -ntp}
WORK=${DEMO_DIR:-$ROOT/target/demo}
DEMO_SQL=${DEMO_SQL:-1}
KAFKA_VERSION=4.4.0
KAFKA_LIBS=$ROOT/e2e-install/kafka-$KAFKA_VERSION/target/libs
S3PROXY_LIBS=$ROOT/e2e-install/s3proxy/target/libs
TESTS=$ROOT/e2e-install/tests
SPARK=$ROOT/e2e-install/spark-sql
JAVA=${JAVA_HOME:+$JAVA_HOME/bin/}java

PIDS=()
START=$SECONDS
say() { printf '\n\033[1m[demo %3ds] %s\033[0m\n' "$((SECONDS - START))" "$*"; }

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  local live=()
  for pid in "${PIDS[@]}"; do [[ -n $pid ]] && live+=("$pid"); done
  PIDS=("${live[@]}")
  if ((${#PIDS[@]})); then
    say "Stopping what the demo started (pids ${PIDS[*]})"
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for _ in $(seq 1 40); do
      alive=0
      for pid in "${PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
      ((alive)) || break
      sleep 0.5
    done
    for pid in "${PIDS[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  fi
  if ((rc == 130)); then
    echo "demo interrupted; everything it started is stopped" >&2
  elif ((rc != 0)); then
    echo "demo FAILED (exit $rc). Logs: $WORK/broker.log, $WORK/s3proxy.log, $WORK/head-view.log" >&2
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "Building: the plugin folder (make dist), Kafka $KAFKA_VERSION and S3Proxy jars, the demo's Java steps"
make --no-print-directory dist MVN="$MVN"
PROFILES=""
[[ $DEMO_SQL == 1 ]] && PROFILES="-Pdemo-sql"
$MVN -q -pl e2e-install/tests,head-view${PROFILES:+,e2e-install/spark-sql} -am $PROFILES -DskipTests package
VERSION=$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' pom.xml | head -1)
PLUGIN_DIR=$ROOT/dist/floe-$VERSION
DEMO_CP="$TESTS/target/classes:$(cat "$TESTS/target/demo-classpath.txt")"
demo() { "$JAVA" -Xmx512m -cp "$DEMO_CP" io.floe.demo.Demo "$@"; }
# A long step in the background + wait: a TERM sent to this script alone then runs the trap at once (bash defers
# traps while a foreground child runs), and the trap stops the step too.
step() {
  "$@" &
  local pid=$!
  PIDS+=("$pid")
  local rc=0
  wait "$pid" || rc=$?
  PIDS=("${PIDS[@]/$pid}")
  return "$rc"
}

rm -rf "$WORK"
mkdir -p "$WORK"
eval "$(demo setup "$WORK" "$ROOT/broker-config/server.properties" "$PLUGIN_DIR")"

say "Starting S3Proxy on 127.0.0.1:$S3_PORT (filesystem store in $WORK/s3)"
# shellcheck disable=SC2086
"$JAVA" $S3PROXY_JVM -cp "$S3PROXY_LIBS/*" org.gaul.s3proxy.Main --properties "$WORK/s3proxy.properties" \
  >"$WORK/s3proxy.log" 2>&1 &
PIDS+=($!)

say "Formatting and starting a Kafka $KAFKA_VERSION broker on 127.0.0.1:$BROKER_PORT (Floe from $PLUGIN_DIR)"
CLUSTER_ID=$("$JAVA" -cp "$KAFKA_LIBS/*" kafka.tools.StorageTool random-uuid | tail -1)
# shellcheck disable=SC2086
"$JAVA" $BROKER_JVM -cp "$KAFKA_LIBS/*" kafka.tools.StorageTool format -t "$CLUSTER_ID" \
  -c "$WORK/server.properties" --standalone >"$WORK/format.log" 2>&1
# shellcheck disable=SC2086
"$JAVA" $BROKER_JVM -cp "$KAFKA_LIBS/*" kafka.Kafka "$WORK/server.properties" >"$WORK/broker.log" 2>&1 &
BROKER_PID=$!
PIDS+=("$BROKER_PID")
echo "  broker log: $WORK/broker.log"

step demo run "$WORK" "$BROKER_PID"
TABLE=$(sed -n 's/^table=//p' "$WORK/demo-result.properties")

HEAD_VIEW_URI=http://127.0.0.1:$HEAD_VIEW_PORT
say "Starting the head view on $HEAD_VIEW_URI (config $WORK/head-view.properties)"
"$JAVA" -Xmx512m -cp "$(ls "$ROOT"/head-view/target/floe-head-view-*.jar | grep -v -- -tests.jar | head -1):$(cat "$ROOT/head-view/target/classpath.txt")" \
  io.floe.headview.HeadViewServer --config "$WORK/head-view.properties" >"$WORK/head-view.log" 2>&1 &
PIDS+=($!)
step demo fresh "$WORK"

SQL_HOW="Iceberg generic reader (DEMO_SQL=0)"
if [[ $DEMO_SQL == 1 ]]; then
  say "SQL over the Iceberg table with Spark 4.1 local + Iceberg 1.12 (same JDBC catalog, catalog name 'floe')"
  OPENS=""
  for p in java.lang java.lang.invoke java.lang.reflect java.io java.net java.nio java.util java.util.concurrent \
           java.util.concurrent.atomic sun.nio.ch sun.nio.cs sun.security.action sun.util.calendar jdk.internal.misc \
           jdk.internal.ref sun.nio.fs; do
    OPENS="$OPENS --add-opens=java.base/$p=ALL-UNNAMED"
  done
  # shellcheck disable=SC2086
  if step "$JAVA" -Xmx1g $OPENS \
      -cp "$SPARK/target/classes:$(cat "$SPARK/target/spark-classpath.txt")" \
      io.floe.demo.sql.SparkSql "$WORK/server.properties" "$TABLE" "$HEAD_VIEW_URI" 2> "$WORK/spark.log"; then
    SQL_HOW="Spark SQL"
  else
    echo "Spark failed (see $WORK/spark.log); reading the table with Iceberg's generic reader instead" >&2
    SQL_HOW="Iceberg generic reader (Spark failed)"
    step demo scan "$WORK"
  fi
else
  step demo scan "$WORK"
fi

if grep -E '\] ERROR ' "$WORK/broker.log" | grep -qiE 'floe|remote'; then
  echo "The broker logged errors about Floe / remote storage:" >&2
  grep -E '\] ERROR ' "$WORK/broker.log" | grep -iE 'floe|remote' | head -5 >&2
  exit 1
fi

# shellcheck disable=SC1091
. <(sed 's/\./_/g' "$WORK/demo-result.properties")
say "Summary"
cat <<EOF
  Kafka $KAFKA_VERSION broker + Floe $VERSION ($(ls "$PLUGIN_DIR"/*.jar | wc -l) jars in $PLUGIN_DIR)
  topic 'orders': $records records produced; tiering took ${tiering_seconds}s
  consumed from offset 0: $records records, $tiered served from the Iceberg tier, $local from the local log
  head view: $fresh records produced after tiering, each round in a query started right after its acks (last: $fresh_visible_after_ms ms)
  Iceberg table floe.kafka.$table (JDBC catalog $WORK/catalog.db, data in $WORK/s3/floe), queried with $SQL_HOW
  demo total: $((SECONDS - START)) s
EOF
