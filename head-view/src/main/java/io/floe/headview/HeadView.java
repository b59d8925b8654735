package io.floe.headview;

import io.floe.headview.HeadWriter.HeadFile;
import io.floe.headview.HeadWriter.Ranges;
import io.floe.layout.OffsetBounds;
import io.floe.layout.TopicTableLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.RESTCatalogProperties;
import org.apache.iceberg.rest.responses.ListTablesResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;
import org.apache.iceberg.util.SnapshotUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * loadTable of the head view. For a topic table (one with the {@code kafka.topic} property) the
 * answer is the table's metadata whose current snapshot is the committed snapshot plus one append
 * of "head" files: per partition, the committed records after the last offset the committed
 * snapshot holds, up to the last stable offset at the time of the query, read with read_committed.
 * Nothing is committed to the real catalog.
 *
 * <p>Per table the last head is cached: a query that finds the same committed metadata and the same
 * end offsets gets the same metadata back without writing anything; one that finds more records
 * (same committed metadata) writes only the new records and appends them to the cached head. When
 * the committed metadata changes the head is rebuilt from the new boundaries, and the old head's
 * files are deleted after {@code head.cache-ttl-ms} (so a query still reading them can finish);
 * those of a head not queried for {@code head.idle-ttl-ms} are deleted too.
 */
final class HeadView implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HeadView.class);
  static final String SUMMARY_HEAD = "floe.head";
  static final String SUMMARY_HEAD_OFFSETS = "floe.head-offsets";

  /**
   * Extensions append a snapshot each; past this many the head is rebuilt as one snapshot over the
   * same files, so that the metadata (written and sent on every load) stays small while the real
   * table does not move.
   */
  static final int MAX_HEAD_SNAPSHOTS = 8;

  private final Catalog catalog;
  private final UntieredTopics untiered;
  private final KafkaHead kafka;
  private final HeadViewConfig config;
  private final Map<TableIdentifier, Entry> entries = new ConcurrentHashMap<>();
  private final List<Retired> retired = new ArrayList<>();
  private final ScheduledExecutorService sweeper;

  HeadView(Catalog catalog, KafkaHead kafka, HeadViewConfig config) {
    this.catalog = catalog;
    this.untiered = new UntieredTopics(catalog, kafka, config);
    this.kafka = kafka;
    this.config = config;
    this.sweeper =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "floe-head-sweeper");
              t.setDaemon(true);
              return t;
            });
    long period =
        Math.max(500, Math.min(60_000, Math.min(config.cacheTtlMs(), config.idleTtlMs()) / 2));
    sweeper.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
  }

  LoadTableResponse loadTable(TableIdentifier id) {
    return loadTable(id, new LoadTimings());
  }

  LoadTableResponse loadTable(TableIdentifier id, LoadTimings timings) {
    Table table;
    try {
      table = catalog.loadTable(id);
    } catch (NoSuchTableException e) {
      table = untiered.table(id, e);
    }
    timings.mark("catalog");
    if (table instanceof org.apache.iceberg.BaseMetadataTable) {
      // REST clients load a metadata table (t.snapshots, t.files...) by loading t itself.
      throw new org.apache.iceberg.exceptions.NoSuchTableException("Table does not exist: %s", id);
    }
    if (!(table instanceof HasTableOperations withOps)) {
      return CatalogHandlers.loadTable(catalog, id, RESTCatalogProperties.SnapshotMode.ALL);
    }
    TableMetadata base = withOps.operations().current();
    String topic = base.properties().get(TopicTableLayout.PROP_TOPIC);
    if (topic == null) {
      return LoadTableResponse.builder().withTableMetadata(base).build();
    }
    Entry entry = entries.computeIfAbsent(id, Entry::new);
    TableMetadata view;
    synchronized (entry) {
      view = entry.load(table, base, topic, timings);
    }
    return LoadTableResponse.builder().withTableMetadata(view).build();
  }

  ListTablesResponse listTables(Namespace ns) {
    return untiered.listTables(ns);
  }

  void tableExists(TableIdentifier id) {
    untiered.tableExists(id);
  }

  /** One cached head: what it was built on and for, and its data files. */
  private record State(
      String baseLocation,
      TableMetadata metadata,
      Map<Integer, Long> from,
      Map<Integer, Long> to,
      ViewOperations ops,
      List<HeadFile> files) {

    List<String> dataFileLocations() {
      return files.stream().map(f -> f.file().location()).toList();
    }
  }

  private record Retired(State state, long deleteAtNanos) {}

  private final class Entry {
    private final TableIdentifier id;
    private long boundsSnapshotId = Long.MIN_VALUE;
    private Map<Integer, Long> committedNext = Map.of();
    private State state;
    private volatile long lastUsedNanos = System.nanoTime();

    Entry(TableIdentifier id) {
      this.id = id;
    }

    TableMetadata load(Table table, TableMetadata base, String topic, LoadTimings timings) {
      long started = System.nanoTime();
      lastUsedNanos = started;
      Map<Integer, Long> next = committedNext(table, base);
      timings.mark("bounds");
      try {
        KafkaHead.TopicInfo info = kafka.describe(topic);
        if (info == null) {
          LOG.debug(
              "Topic {} of table {} does not exist in Kafka: serving committed data only",
              topic,
              id);
          return base;
        }
        String tableTopicId = base.properties().get(TopicTableLayout.PROP_TOPIC_ID);
        if (tableTopicId != null && !tableTopicId.equals(info.topicId())) {
          LOG.debug(
              "Table {} belongs to topic {} id {}, Kafka's topic {} now has id {}: serving committed data only",
              id,
              topic,
              tableTopicId,
              topic,
              info.topicId());
          return base;
        }
        timings.mark("kafka-describe");
        KafkaHead.Offsets offsets = kafka.offsets(topic, info.partitions());
        timings.mark("kafka-offsets");
        Map<Integer, Long> from = new TreeMap<>();
        Map<Integer, Long> to = new TreeMap<>();
        for (int p : info.partitions()) {
          from.put(p, Math.max(next.getOrDefault(p, 0L), offsets.start().getOrDefault(p, 0L)));
          to.put(p, offsets.end().getOrDefault(p, 0L));
        }

        String baseLocation = base.metadataFileLocation();
        if (state != null && Objects.equals(state.baseLocation(), baseLocation)) {
          if (state.to().equals(to)) {
            return state.metadata();
          }
          if (grows(state.to(), to)
              && state.metadata().snapshots().size() - base.snapshots().size()
                  < MAX_HEAD_SNAPSHOTS) {
            Map<Integer, Long> newFrom = new TreeMap<>();
            from.forEach((p, f) -> newFrom.put(p, Math.max(f, state.to().getOrDefault(p, f))));
            state =
                extend(
                    topic,
                    state,
                    List.of(),
                    List.of(new Ranges(newFrom, to)),
                    newFrom,
                    to,
                    timings);
            log(started, "extended", newFrom, to);
            return state.metadata();
          }
        }
        State old = state;
        state = null;
        List<HeadFile> kept = List.of();
        List<Ranges> reads = List.of(new Ranges(from, to));
        if (old != null && reusable(old, base, from, to)) {
          // The committed table moved on (a segment was tiered): keep the old head's files that lie
          // wholly past the
          // new boundary, read only what is not in them.
          Map<Integer, Long> cut = new TreeMap<>();
          kept = keptFiles(old, from, cut);
          Map<Integer, Long> toCut = new TreeMap<>();
          Map<Integer, Long> afterOld = new TreeMap<>();
          for (Map.Entry<Integer, Long> e : from.entrySet()) {
            int p = e.getKey();
            long c = cut.get(p);
            toCut.put(p, Math.min(c, to.get(p)));
            afterOld.put(p, Math.max(c, old.to().getOrDefault(p, c)));
          }
          reads = List.of(new Ranges(from, toCut, true), new Ranges(afterOld, to));
        }
        String scratch = scratchFor(base);
        State fresh =
            new State(
                baseLocation,
                base,
                Map.copyOf(from),
                Map.of(),
                new ViewOperations(HeadWriter.withUnpartitionedSpec(base), table.io(), scratch),
                List.of());
        try {
          state = extend(topic, fresh, kept, reads, from, to, timings);
        } finally {
          if (old != null) {
            // The files the new head carries over are its own now; if building it failed, they all
            // go.
            Set<String> carried = new HashSet<>();
            if (state != null) {
              kept.forEach(f -> carried.add(f.file().location()));
            }
            retire(
                new State(
                    old.baseLocation(),
                    old.metadata(),
                    old.from(),
                    old.to(),
                    old.ops(),
                    old.files().stream()
                        .filter(f -> !carried.contains(f.file().location()))
                        .toList()));
          }
        }
        log(
            started,
            kept.isEmpty() ? "built" : "rebuilt keeping " + kept.size() + " files",
            from,
            to);
        return state.metadata();
      } catch (KafkaHead.KafkaUnavailableException e) {
        if (config.onKafkaError() == HeadViewConfig.OnKafkaError.COMMITTED) {
          LOG.warn(
              "Kafka unavailable for topic {} ({}): serving table {} without its head",
              topic,
              e.getMessage(),
              id);
          return base;
        }
        throw new ServiceUnavailableException(
            "Kafka is unavailable, so the head of topic %s (table %s) cannot be read: %s",
            topic, id, e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ServiceUnavailableException("Interrupted while reading the head of %s", topic);
      }
    }

    private void log(long started, String what, Map<Integer, Long> from, Map<Integer, Long> to) {
      if (LOG.isDebugEnabled()) {
        LOG.debug(
            "Head of {} {} in {} ms: from {} to {}",
            id,
            what,
            (System.nanoTime() - started) / 1_000_000,
            from,
            to);
      }
    }

    private boolean grows(Map<Integer, Long> before, Map<Integer, Long> now) {
      for (Map.Entry<Integer, Long> e : before.entrySet()) {
        Long n = now.get(e.getKey());
        if (n == null || n < e.getValue()) {
          return false;
        }
      }
      return true;
    }

    /**
     * Whether the old head's files may be carried over to a head on {@code base}: same table,
     * schema and spec, no partition's start went back (a rolled-back table) and no partition's end
     * went back (a truncated log).
     */
    private boolean reusable(
        State old, TableMetadata base, Map<Integer, Long> from, Map<Integer, Long> to) {
      TableMetadata before = old.metadata();
      if (!Objects.equals(before.uuid(), base.uuid())
          || before.currentSchemaId() != base.currentSchemaId()
          || before.defaultSpecId() != base.defaultSpecId()
          || !before.specsById().equals(HeadWriter.withUnpartitionedSpec(base).specsById())) {
        return false;
      }
      for (Map.Entry<Integer, Long> e : old.to().entrySet()) {
        Long now = to.get(e.getKey());
        Long start = from.get(e.getKey());
        Long oldStart = old.from().get(e.getKey());
        if (now == null
            || now < e.getValue()
            || start == null
            || oldStart == null
            || start < oldStart) {
          return false;
        }
      }
      return true;
    }

    /**
     * The old head's files that hold only offsets at or past a per-partition cut, and that cut
     * (into {@code cut}). The cut starts at the new boundary; a file with any offset below the cut
     * of its partition is dropped and moves the cut of each of its partitions past its last offset
     * there, until nothing moves. Then no offset at or past a cut is in a dropped file: the kept
     * files hold exactly the old head's records in [cut, old end).
     */
    private List<HeadFile> keptFiles(State old, Map<Integer, Long> from, Map<Integer, Long> cut) {
      cut.putAll(from);
      List<HeadFile> files = old.files();
      for (HeadFile f : files) {
        if (f.offsets() == null) {
          from.keySet().forEach(p -> cut.put(p, Long.MAX_VALUE));
          return List.of();
        }
      }
      boolean[] dropped = new boolean[files.size()];
      for (boolean moved = true; moved; ) {
        moved = false;
        for (int i = 0; i < files.size(); i++) {
          if (!dropped[i] && below(files.get(i), cut)) {
            dropped[i] = true;
            moved = true;
            files.get(i).offsets().forEach((p, span) -> cut.merge(p, span.last() + 1, Math::max));
          }
        }
      }
      List<HeadFile> kept = new ArrayList<>();
      for (int i = 0; i < files.size(); i++) {
        if (!dropped[i]) {
          kept.add(files.get(i));
        }
      }
      return kept;
    }

    private boolean below(HeadFile file, Map<Integer, Long> cut) {
      for (Map.Entry<Integer, HeadWriter.Span> e : file.offsets().entrySet()) {
        Long c = cut.get(e.getKey());
        if (c == null || e.getValue().first() < c) {
          return true;
        }
      }
      return false;
    }

    /**
     * Writes the records of {@code reads} as head files and appends them, with {@code reused} files
     * of an earlier head, to the state's view in one snapshot whose summary names [from, to).
     */
    private State extend(
        String topic,
        State prior,
        List<HeadFile> reused,
        List<Ranges> reads,
        Map<Integer, Long> from,
        Map<Integer, Long> to,
        LoadTimings timings) {
      ViewOperations ops = prior.ops();
      BaseTable view = new BaseTable(ops, id.toString(), report -> {});
      HeadWriter writer = new HeadWriter(view, config.headWriteProperties());
      timings.mark("write-setup");
      List<HeadFile> written = writer.write(kafka, topic, reads);
      timings.mark("kafka-read", "parquet-write", writer.writeNanos());
      List<HeadFile> headFiles = new ArrayList<>(prior.files());
      headFiles.addAll(reused);
      headFiles.addAll(written);
      if (written.isEmpty() && reused.isEmpty()) {
        return new State(
            prior.baseLocation(),
            prior.metadata(),
            prior.from(),
            Map.copyOf(to),
            ops,
            List.copyOf(headFiles));
      }
      AppendFiles append = view.newFastAppend();
      reused.forEach(f -> append.appendFile(f.file()));
      written.forEach(f -> append.appendFile(f.file()));
      try {
        append.set(SUMMARY_HEAD, "true").set(SUMMARY_HEAD_OFFSETS, ranges(from, to)).commit();
      } catch (RuntimeException e) {
        written.forEach(f -> deleteQuietly(view.io(), f.file().location()));
        throw e;
      }
      timings.mark("append");
      return new State(
          prior.baseLocation(),
          ops.current(),
          prior.from(),
          Map.copyOf(to),
          ops,
          List.copyOf(headFiles));
    }

    /** Per partition, the offset after the last one the committed snapshot holds (absent: none). */
    private Map<Integer, Long> committedNext(Table table, TableMetadata base) {
      Snapshot current = base.currentSnapshot();
      long snapshotId = current == null ? -1 : current.snapshotId();
      if (snapshotId == boundsSnapshotId) {
        return committedNext;
      }
      Map<Integer, Long> next = current == null ? null : boundsSince(table, base, current);
      if (next != null) {
        boundsSnapshotId = snapshotId;
        committedNext = Map.copyOf(next);
        return committedNext;
      }
      next = new HashMap<>();
      if (current != null) {
        for (Snapshot s : SnapshotUtil.ancestorsOf(snapshotId, base::snapshot)) {
          OffsetBounds.mergeSummaryEnd(s, next);
        }
        OffsetBounds.of(table, base).mergeFileEnds(snapshotId, next);
      }
      boundsSnapshotId = snapshotId;
      committedNext = Map.copyOf(next);
      return committedNext;
    }

    /**
     * The boundaries of {@code current} from the cached ones, when it descends from the cached
     * snapshot through snapshots that only added files (the plugin's commits): the cached maxima
     * plus those snapshots' summaries and added files, instead of planning a scan of the whole
     * table. Null when that does not apply.
     */
    private Map<Integer, Long> boundsSince(Table table, TableMetadata base, Snapshot current) {
      if (boundsSnapshotId < 0) {
        return null;
      }
      List<Snapshot> newer = new ArrayList<>();
      boolean found = false;
      for (Snapshot s : SnapshotUtil.ancestorsOf(current.snapshotId(), base::snapshot)) {
        if (s.snapshotId() == boundsSnapshotId) {
          found = true;
          break;
        }
        String deleted = s.summary().get(SnapshotSummary.DELETED_FILES_PROP);
        if (deleted != null && !deleted.equals("0")) {
          return null;
        }
        newer.add(s);
      }
      if (!found) {
        return null;
      }
      Map<Integer, Long> next = new HashMap<>(committedNext);
      for (Snapshot s : newer) {
        OffsetBounds.mergeSummaryEnd(s, next);
        OffsetBounds.of(table, base).mergeAddedFileEnds(s, next);
      }
      return next;
    }
  }

  private static String ranges(Map<Integer, Long> from, Map<Integer, Long> to) {
    StringBuilder out = new StringBuilder();
    new TreeMap<>(to)
        .forEach(
            (p, end) -> {
              long start = from.getOrDefault(p, end);
              if (end > start) {
                if (out.length() > 0) {
                  out.append(',');
                }
                out.append(p).append(':').append(start).append('-').append(end - 1);
              }
            });
    return out.toString();
  }

  private String scratchFor(TableMetadata base) {
    String id = UUID.randomUUID().toString();
    if (config.scratchLocation() == null) {
      String location =
          base.location().endsWith("/")
              ? base.location().substring(0, base.location().length() - 1)
              : base.location();
      return location + "/floe-head/" + id;
    }
    return config.scratchLocation() + "/" + base.uuid() + "/" + id;
  }

  private void retire(State state) {
    synchronized (retired) {
      retired.add(
          new Retired(
              state, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.cacheTtlMs())));
    }
    if (config.cacheTtlMs() == 0) {
      sweep();
    }
  }

  /** Deletes superseded heads whose grace time is over, and heads not used for the cache TTL. */
  void sweep() {
    long now = System.nanoTime();
    long ttl = TimeUnit.MILLISECONDS.toNanos(config.idleTtlMs());
    for (Entry e : entries.values()) {
      if (now - e.lastUsedNanos > ttl) {
        synchronized (e) {
          if (e.state != null && now - e.lastUsedNanos > ttl) {
            State idle = e.state;
            e.state = null;
            retire(idle);
          }
        }
      }
    }
    List<Retired> due = new ArrayList<>();
    synchronized (retired) {
      retired.removeIf(
          r -> {
            if (r.deleteAtNanos() - now <= 0) {
              due.add(r);
              return true;
            }
            return false;
          });
    }
    due.forEach(r -> delete(r.state()));
  }

  /**
   * Every file a head wrote: data files, its manifests and manifest lists, its metadata JSON files.
   */
  static List<String> filesOf(ViewOperations ops, List<String> dataFiles) {
    List<String> out = new ArrayList<>(dataFiles);
    FileIO io = ops.io();
    // Only the head's own snapshots (the committed ones belong to the real table); compared by
    // snapshot id, not
    // by location prefix, since a FileIO may normalize locations (Hadoop turns file:/// into
    // file:/).
    for (Snapshot s : ops.current().snapshots()) {
      if ("true".equals(s.summary().get(SUMMARY_HEAD)) && s.manifestListLocation() != null) {
        for (ManifestFile m : s.allManifests(io)) {
          if (m.snapshotId() != null
              && m.snapshotId() == s.snapshotId()
              && !out.contains(m.path())) {
            out.add(m.path());
          }
        }
        out.add(s.manifestListLocation());
      }
    }
    out.addAll(ops.metadataFiles());
    return out;
  }

  private static void delete(State state) {
    List<String> files;
    try {
      files = filesOf(state.ops(), state.dataFileLocations());
    } catch (RuntimeException e) {
      LOG.warn("Could not list the files of head {}: {}", state.ops().scratch(), e.toString());
      files = state.dataFileLocations();
    }
    files.forEach(f -> deleteQuietly(state.ops().io(), f));
    LOG.debug("Deleted head {} ({} files)", state.ops().scratch(), files.size());
  }

  static void deleteQuietly(FileIO io, String location) {
    try {
      io.deleteFile(location);
    } catch (RuntimeException e) {
      LOG.debug("Could not delete head file {}", location, e);
    }
  }

  @Override
  public void close() {
    sweeper.shutdownNow();
    for (Entry e : entries.values()) {
      synchronized (e) {
        if (e.state != null) {
          retire(e.state);
          e.state = null;
        }
      }
    }
    List<Retired> all;
    synchronized (retired) {
      all = new ArrayList<>(retired);
      retired.clear();
    }
    all.forEach(r -> delete(r.state()));
  }
}
