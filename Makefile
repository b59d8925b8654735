# The few commands a user types. See README.md.
MVN ?= mvn -B -ntp

.PHONY: build test clean

build:
	$(MVN) -DskipTests install

test:
	$(MVN) verify

clean:
	$(MVN) clean
