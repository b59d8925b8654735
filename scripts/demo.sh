#!/usr/bin/env bash
# make demo: Floe end to end on this machine, nothing to install but Java 17 and Maven.
#
#   1. builds the plugin folder (make dist), Kafka 4.4.0's broker jars, S3Proxy's jars and the demo's Java steps
#   2. starts S3Proxy, a schema registry (Apicurio Registry 3.3.3 from Maven Central, on a Java 21+ JDK) and a
#      one-node KRaft broker (Kafka's own jars only, Floe from dist/ through remote.log.storage.manager.class.path,
#      config = broker-config/server.properties with free ports, plus a rule typing the orders topic's values)
#   3. creates a tiered topic, produces 20,000 Avro orders in the registry's wire format, prints tiering progress
#   4. consumes the topic from offset 0 (the old segments now exist only in the Iceberg table), byte for byte
#   5. starts the head view (head-view/, a read-only Iceberg REST catalog), evolves the orders' schema (a new
#      optional field), produces more orders with it and queries them through the head view at once: tiered files
#      + the live Kafka head, every acknowledged record exactly once, typed, the new column filled for new rows
#   6. runs SQL over the typed columns with Spark local + Iceberg, directly and through the head view (DEMO_SQL=0
#      skips Spark: Iceberg's generic reader instead)
#   7. stops everything it started, on success, failure or Ctrl-C; DEMO_KEEP=1 leaves the broker, object store,
#      registry and head view running after a successful run and prints how to use and stop them
#
# Environment: DEMO_DIR (default target/demo, wiped first), DEMO_SQL=0|1 (default 1), DEMO_KEEP=0|1 (default 0),
# REGISTRY_JAVA (a Java 21+ for the registry; found under /usr/lib/jvm otherwise), MVN.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
MVN=${MVN:-mvn -B -ntp}
WORK=${DEMO_DIR:-$ROOT/target/demo}
DEMO_SQL=${DEMO_SQL:-1}
DEMO_KEEP=${DEMO_KEEP:-0}
REGISTRY_VERSION=3.3.3
REGISTRY_ARCHIVE=${MAVEN_REPO:-$HOME/.m2/repository}/io/apicurio/apicurio-registry-app/$REGISTRY_VERSION/apicurio-registry-app-$REGISTRY_VERSION-all.tar.gz
REGISTRY_HOME=$ROOT/target/apicurio-registry-$REGISTRY_VERSION
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
  if ((rc == 0)) && [[ $DEMO_KEEP == 1 ]]; then
    keep_running
    exit 0
  fi
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
    echo "demo FAILED (exit $rc). Logs: $WORK/broker.log, $WORK/s3proxy.log, $WORK/registry.log, $WORK/head-view.log" >&2
  fi
  exit "$rc"
}
# A Java 21 or newer for the schema registry (Apicurio Registry 3.x needs it).
find_registry_java() {
  local c v
  for c in "${REGISTRY_JAVA:-}" /usr/lib/jvm/temurin-25-jdk-amd64/bin/java /usr/lib/jvm/*/bin/java "$(command -v java || true)"; do
    [[ -n $c && -x $c ]] || continue
    v=$("$c" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
    if [[ -n $v ]] && ((v >= 21)); then
      echo "$c"
      return 0
    fi
  done
  return 1
}

# DEMO_KEEP=1: what is running, how to use it, how to stop it.
keep_running() {
  local access secret pid live=()
  for pid in "${PIDS[@]}"; do [[ -n $pid ]] && live+=("$pid"); done
  PIDS=("${live[@]}")
  access=$(sed -n 's/^rsm.config.iceberg.s3.access-key-id=//p' "$WORK/server.properties")
  secret=$(sed -n 's/^rsm.config.iceberg.s3.secret-access-key=//p' "$WORK/server.properties")
  printf 'kill %s 2>/dev/null; echo stopped\n' "${PIDS[*]}" >"$WORK/stop.sh"
  say "Left running (DEMO_KEEP=1): broker, S3Proxy, schema registry, head view (pids ${PIDS[*]})"
  cat <<EOF
  Kafka        127.0.0.1:$BROKER_PORT, e.g.
                 java -cp "$KAFKA_LIBS/*" org.apache.kafka.tools.consumer.ConsoleConsumer \\
                   --bootstrap-server 127.0.0.1:$BROKER_PORT --topic orders --from-beginning --max-messages 3
  Registry     http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7, e.g.
                 curl http://127.0.0.1:$REGISTRY_PORT/apis/ccompat/v7/subjects/orders-value/versions
  S3 (S3Proxy) http://127.0.0.1:$S3_PORT, bucket floe, access key $access, secret key $secret
  Head view    $HEAD_VIEW_URI (an Iceberg REST catalog: the table plus the live Kafka head)
  Spark        spark-sql --packages org.apache.iceberg:iceberg-spark-runtime-4.1_2.13:1.12.0,org.apache.iceberg:iceberg-aws-bundle:1.12.0 \\
                 --conf spark.sql.catalog.headview=org.apache.iceberg.spark.SparkCatalog \\
                 --conf spark.sql.catalog.headview.type=rest --conf spark.sql.catalog.headview.uri=$HEAD_VIEW_URI \\
                 --conf spark.sql.catalog.headview.cache-enabled=false \\
                 --conf spark.sql.catalog.headview.io-impl=org.apache.iceberg.aws.s3.S3FileIO \\
                 --conf spark.sql.catalog.headview.s3.endpoint=http://127.0.0.1:$S3_PORT \\
                 --conf spark.sql.catalog.headview.s3.path-style-access=true \\
                 --conf spark.sql.catalog.headview.client.region=us-east-1 \\
                 --conf spark.sql.catalog.headview.s3.access-key-id=$access \\
                 --conf spark.sql.catalog.headview.s3.secret-access-key=$secret \\
                 -e 'SELECT value.customer, round(sum(value.amount), 2) FROM headview.kafka.orders GROUP BY 1'
  Trino        a catalog file etc/catalog/floe.properties:
                 connector.name=iceberg
                 iceberg.catalog.type=rest
                 iceberg.rest-catalog.uri=$HEAD_VIEW_URI
                 fs.native-s3.enabled=true
                 s3.endpoint=http://127.0.0.1:$S3_PORT
                 s3.path-style-access=true
                 s3.region=us-east-1
                 s3.aws-access-key=$access
                 s3.aws-secret-key=$secret
               then: SELECT value.customer, count(*) FROM floe.kafka.orders GROUP BY 1;
  Stop         bash $WORK/stop.sh
EOF
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

if ! REGISTRY_JAVA=$(find_registry_java); then
  echo "The demo's schema registry (Apicurio Registry $REGISTRY_VERSION) needs Java 21 or newer, and none was found" \
    "(REGISTRY_JAVA, /usr/lib/jvm/*, java on the PATH). Install one, e.g. 'apt-get install -y openjdk-21-jre-headless'" \
    "or Temurin 21+, then run again (or set REGISTRY_JAVA=/path/to/bin/java)." >&2
  exit 1
fi
if [[ ! -f $REGISTRY_HOME/quarkus-run.jar ]]; then
  [[ -f $REGISTRY_ARCHIVE ]] || { echo "missing $REGISTRY_ARCHIVE (the build should have downloaded it)" >&2; exit 1; }
  tmp=$(mktemp -d "$ROOT/target/apicurio-extract-XXXX")
  tar -xzf "$REGISTRY_ARCHIVE" -C "$tmp"
  top=$tmp
  [[ -f $top/quarkus-run.jar ]] || top=$(dirname "$(find "$tmp" -maxdepth 2 -name quarkus-run.jar | head -1)")
  rm -rf "$REGISTRY_HOME"
  mv "$top" "$REGISTRY_HOME"
  rm -rf "$tmp"
fi
say "Starting the schema registry (Apicurio Registry $REGISTRY_VERSION, Confluent-compatible API) on 127.0.0.1:$REGISTRY_PORT"
(cd "$REGISTRY_HOME" && exec "$REGISTRY_JAVA" -Xmx256m -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$REGISTRY_PORT" \
  -Dquarkus.management.host=127.0.0.1 -Dquarkus.management.port="$REGISTRY_MANAGEMENT_PORT" -jar quarkus-run.jar) \
  >"$WORK/registry.log" 2>&1 &
PIDS+=($!)

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
"$JAVA" $BROKER_JVM -cp "$KAFKA_LIBS/*:$PLUGIN_DIR/broker-libs/*" kafka.Kafka "$WORK/server.properties" >"$WORK/broker.log" 2>&1 &
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
  topic 'orders': $records Avro orders produced (schema id $schema_v1 in the registry); tiering took ${tiering_seconds}s
  consumed from offset 0: $records records, $tiered served from the Iceberg tier, $local from the local log
  head view: $fresh orders produced after tiering with schema version 2 (a new optional coupon), each round in a query
    started right after its acks (last: $fresh_visible_after_ms ms): typed, the new column filled for them, null before
  Iceberg table floe.kafka.$table (JDBC catalog $WORK/catalog.db, data in $WORK/s3/floe), queried with $SQL_HOW
  demo total: $((SECONDS - START)) s
EOF
