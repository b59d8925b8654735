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
