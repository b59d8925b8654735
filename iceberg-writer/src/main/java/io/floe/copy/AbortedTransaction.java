package io.floe.copy;

/**
 * A transaction Kafka aborted: the producer and the offset range of its records in one partition.
 */
public record AbortedTransaction(long producerId, long firstOffset, long lastOffset) {}
