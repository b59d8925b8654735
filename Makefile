# The few commands a user types. See README.md.
MVN ?= mvn -B -ntp

.PHONY: build test clean

build:
	$(MVN) -DskipTests install

test:
	$(MVN) verify

clean:
	$(MVN) clean

# Conversion benchmark (segment -> table -> re-encoded stream), 1 KiB JSON-like records, codecs none and zstd,
# under a 256 MiB heap. Report: target/bench/conversion.json. BENCH_MIB sets the segment size.
BENCH_MIB ?= 256
.PHONY: bench
bench:
	$(MVN) -q -DskipTests install
	$(MVN) -q -pl iceberg-writer dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=$(CURDIR)/target/bench/classpath.txt
	java -Xmx256m -cp iceberg-writer/target/test-classes:iceberg-writer/target/classes:$$(cat target/bench/classpath.txt) \
	  io.floe.bench.ConversionBench target/bench/conversion.json $(BENCH_MIB)

# Installable plugin: dist/floe-<version>/ (floe-rsm-plugin's jar + its runtime dependencies, no Kafka or slf4j
# jars: the broker has them) and dist/floe-<version>.tar.gz. Point remote.log.storage.manager.class.path at <folder>/*.
# The jar set is e2e-install/floe-dist's (copy-dependencies of floe-rsm-plugin), the same folder that
# e2e-install's ChildProcessBrokerTest loads into Kafka 4.4.0 and 4.1.2 brokers, so what ships is what CI tested.
VERSION := $(shell sed -n 's:.*<version>\(.*\)</version>.*:\1:p' pom.xml | head -1)
DIST := dist/floe-$(VERSION)
.PHONY: dist
dist:
	rm -rf e2e-install/floe-dist/target/floe-dist
	$(MVN) -q -pl e2e-install/floe-dist -am -DskipTests package
	rm -rf $(DIST) $(DIST).tar.gz
	mkdir -p $(DIST)/config
	cp e2e-install/floe-dist/target/floe-dist/*.jar $(DIST)/
	cp broker-config/server.properties broker-config/tiered-topic.properties broker-config/PRODUCTION.md $(DIST)/config/
	tar -C dist -czf $(DIST).tar.gz floe-$(VERSION)
	@echo "$(DIST): $$(ls $(DIST)/*.jar | wc -l) jars, $$(du -sh $(DIST) | cut -f1); $(DIST).tar.gz"

# Quick start end to end: S3Proxy + a Kafka 4.4.0 broker (child processes) with the plugin from dist/, a tiered
# topic, tiering progress, a consumer reading back from the Iceberg tier, and a SQL query over the table.
.PHONY: demo
demo:
	bash scripts/demo.sh
