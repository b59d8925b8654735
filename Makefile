# The few commands a user types. See README.md.
MVN ?= mvn -B -ntp

.PHONY: build test clean

build:
	$(MVN) -DskipTests install

test:
	$(MVN) verify

clean:
	$(MVN) clean

# Benchmarks (module benchmarks/): Floe against a raw-copy baseline (segment uploaded unchanged, ranged reads) in the
# same process, on S3Proxy (127.0.0.1) and a JdbcCatalog: copy, catch-up fetch, read amplification, stored bytes,
# 16 concurrent committers, copy heap under a 256 MiB limit; then the head view's loadTable latencies
# (scripts/bench-head-view.sh). Report: target/bench/report.json. BENCH_QUICK=1 for a short run.
.PHONY: bench
bench:
	mkdir -p target/bench
	$(MVN) -q -pl benchmarks -am -DskipTests package dependency:build-classpath \
	  -Dmdep.includeScope=runtime -Dmdep.outputFile=$(CURDIR)/target/bench/classpath.txt
	java -Xmx256m -cp benchmarks/target/classes:$$(cat target/bench/classpath.txt) \
	  io.floe.bench.FloeBench target/bench/report.json "$$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
	  $(if $(BENCH_QUICK),quick,full)
	bash scripts/bench-head-view.sh target/bench/report.json $(if $(BENCH_QUICK),quick,full)

# Only the typed workload of make bench (TypedBench: typed Avro and JSON Schema values against binary mode), about a
# minute. Report: target/bench/typed.json.
.PHONY: bench-typed
bench-typed:
	mkdir -p target/bench
	$(MVN) -q -pl benchmarks -am -DskipTests package dependency:build-classpath \
	  -Dmdep.includeScope=runtime -Dmdep.outputFile=$(CURDIR)/target/bench/classpath.txt
	java -Xmx256m -cp benchmarks/target/classes:$$(cat target/bench/classpath.txt) \
	  io.floe.bench.FloeBench target/bench/typed.json "$$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" typed

# Installable plugin: dist/floe-<version>/ (floe-rsm-plugin's jar + its runtime dependencies, no Kafka or slf4j
# jars: the broker has them) and dist/floe-<version>.tar.gz. Point remote.log.storage.manager.class.path at <folder>/*,
# and put <folder>/broker-libs/* (Floe's remote log metadata manager, Kafka jars only) on the broker's classpath.
# The jar set is e2e-install/floe-dist's (copy-dependencies of floe-rsm-plugin), the same folder that
# e2e-install's ChildProcessBrokerTest loads into Kafka 4.4.0, 4.1.2 and 3.9.2 brokers, so what ships is what CI tested.
VERSION := $(shell sed -n 's:.*<version>\(.*\)</version>.*:\1:p' pom.xml | head -1)
DIST := dist/floe-$(VERSION)
.PHONY: dist
dist:
	rm -rf e2e-install/floe-dist/target/floe-dist
	$(MVN) -q -pl e2e-install/floe-dist -am -DskipTests package
	rm -rf $(DIST) $(DIST).tar.gz
	mkdir -p $(DIST)/config
	cp e2e-install/floe-dist/target/floe-dist/*.jar $(DIST)/
	mkdir -p $(DIST)/broker-libs
	cp e2e-install/floe-dist/target/floe-dist/broker-libs/*.jar $(DIST)/broker-libs/
	cp broker-config/server.properties broker-config/tiered-topic.properties broker-config/PRODUCTION.md $(DIST)/config/
	tar -C dist -czf $(DIST).tar.gz floe-$(VERSION)
	@echo "$(DIST): $$(ls $(DIST)/*.jar | wc -l) jars, $$(du -sh $(DIST) | cut -f1); $(DIST).tar.gz"

# Quick start end to end: S3Proxy + a Kafka 4.4.0 broker (child processes) with the plugin from dist/, a tiered
# topic, tiering progress, a consumer reading back from the Iceberg tier, and a SQL query over the table.
.PHONY: demo
demo:
	bash scripts/demo.sh

# Soak (not part of make test): three Kafka 4.4.0 broker processes with Floe on a PostgreSQL catalog, a producer
# writing continuously, a consumer reading back from the tier pass after pass, and brokers killed with SIGKILL and
# restarted for SOAK_MINUTES (and at least SOAK_KILLS kills); then the KillNineTest checks, broker heap/threads/open
# files at start and end, and commits/s into one table from three brokers on PostgreSQL and on a REST catalog.
# Report: target/soak/report.json.
SOAK_MINUTES ?= 10
SOAK_KILLS ?= 0
.PHONY: soak
soak:
	mkdir -p target/soak
	$(MVN) -pl e2e-install/tests -am verify -Dtest=KillNineSoak -Dsurefire.failIfNoSpecifiedTests=false \
	  -Dfloe.soak.minutes=$(SOAK_MINUTES) -Dfloe.soak.kills=$(SOAK_KILLS) \
	  -Dfloe.soak.report=$(CURDIR)/target/soak/report.json

# Commit throughput (not part of make test): three brokers' catalog clients copying small segments into one table on a
# shared catalog for COMMIT_RATE_SECONDS; segments/s (and snapshots/s) in all and per broker per 5 s, commit attempts, where copiers'
# time goes, metadata.json size per snapshot (iceberg-writer's SharedCommitRate). COMMIT_RATE_KIND=POSTGRES or REST.
COMMIT_RATE_KIND ?= POSTGRES
COMMIT_RATE_SECONDS ?= 25
COMMIT_RATE_COPIERS ?= 3
COMMIT_RATE_BROKERS ?= 3
.PHONY: commit-rate
commit-rate:
	$(MVN) -pl iceberg-writer -am verify -Dtest=SharedCommitRate -Dsurefire.failIfNoSpecifiedTests=false \
	  -Dfloe.commitRate=true -Dfloe.commitRate.kind=$(COMMIT_RATE_KIND) -Dfloe.commitRate.seconds=$(COMMIT_RATE_SECONDS) \
	  -Dfloe.commitRate.copiers=$(COMMIT_RATE_COPIERS) -Dfloe.commitRate.brokers=$(COMMIT_RATE_BROKERS)
