package io.floe.headview;

import io.floe.copy.Leftovers;
import io.floe.headview.HeadWriter.HeadFile;
import io.floe.layout.TopicTableLayout;
import io.floe.rows.TableCodecs;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.BaseMetadataTable;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ServiceUnavailableException;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.RESTCatalogProperties;
import org.apache.iceberg.rest.responses.ListTablesResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * loadTable of the head view. For a topic table (one with the {@code kafka.topic} property) the
 * answer is the table's metadata whose current snapshot is the committed snapshot plus one append
 * of "head" files: per partition, the committed records after the last offset the committed
 * snapshot holds, up to the last stable offset at the time of the query, read with read_committed.
 * Nothing is committed to the real catalog.
 *
 * <p>Per table the last head is cached. What a load does with it (reuse, extend, rebuild keeping
 * the files past the new boundary) is {@link HeadPlanner}'s decision; this class gathers what the
 * planner needs (the committed boundaries, Kafka's offsets), carries the plan out (reads Kafka,
 * writes and appends head files), maps Kafka failures to answers, and retires superseded heads:
 * their files are deleted after {@code head.cache-ttl-ms} (so a query still reading them can
 * finish), those of a head not queried for {@code head.idle-ttl-ms} too. Head files go to a folder
 * of this process under each table's scratch root ({@link ScratchFolders}); what head views that
 * are gone left under those roots is deleted in the background ({@link LeftoverHeads}).
 */
final class HeadView {
  private static final Logger LOG = LoggerFactory.getLogger(HeadView.class);
  static final String SUMMARY_HEAD = "floe.head";
  static final String SUMMARY_HEAD_OFFSETS = "floe.head-offsets";

  private final Catalog catalog;
  private final UntieredTopics untiered;
  private final KafkaHead kafka;
  private final HeadViewConfig config;
  private final TableCodecs codecs;

  private final Map<TableIdentifier, TableHead> heads = new ConcurrentHashMap<>();
  private final RetiredHeads retired = new RetiredHeads();
  private final ScratchFolders folders;
  private final LeftoverHeads leftovers;
  private final ScheduledExecutorService sweeper;

  HeadView(Catalog catalog, KafkaHead kafka, HeadViewConfig config) {
    this.catalog = catalog;
    this.untiered = new UntieredTopics(catalog, kafka, config);
    this.kafka = kafka;
    this.config = config;
    this.codecs = TableCodecs.of(config.registry());
    this.folders = new ScratchFolders(config.leftoverAgeMs());
    this.leftovers = new LeftoverHeads(folders.instanceId(), config.leftoverAgeMs());
    this.sweeper =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "floe-head-sweeper");
              t.setDaemon(true);
              return t;
            });
    long period =
        Math.max(
            500,
            Math.min(
                Math.min(60_000, config.leftoverAgeMs() / 8),
                Math.min(config.cacheTtlMs(), config.idleTtlMs()) / 2));
    sweeper.scheduleWithFixedDelay(this::sweepQuietly, period, period, TimeUnit.MILLISECONDS);
    LOG.info(
        "Head view instance {}: head files go to {}/{}/",
        folders.instanceId(),
        config.scratchLocation() == null
            ? "<table location>/floe-head"
            : config.scratchLocation() + "/<table uuid>",
        folders.instanceId());
    leftovers.scanAtStart(catalog, config.namespace(), this::scratchRoot);
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
    if (table instanceof BaseMetadataTable) {
      // REST clients load a metadata table (t.snapshots, t.files...) by loading t itself.
      throw new NoSuchTableException("Table does not exist: %s", id);
    }
    if (!(table instanceof HasTableOperations withOps)) {
      return CatalogHandlers.loadTable(catalog, id, RESTCatalogProperties.SnapshotMode.ALL);
    }
    TableMetadata base = withOps.operations().current();
    String topic = base.properties().get(TopicTableLayout.PROP_TOPIC);
    if (topic == null) {
      return LoadTableResponse.builder().withTableMetadata(base).build();
    }
    TableHead head = heads.computeIfAbsent(id, TableHead::new);
    TableMetadata view;
    synchronized (head) {
      view = head.load(table, base, topic, timings);
    }
    return LoadTableResponse.builder().withTableMetadata(view).build();
  }

  ListTablesResponse listTables(Namespace ns) {
    return untiered.listTables(ns);
  }

  void tableExists(TableIdentifier id) {
    untiered.tableExists(id);
  }

  /** One table's head: the one built last, the committed boundaries, when it was last used. */
  private final class TableHead {
    private final TableIdentifier id;
    private final SnapshotBoundaries boundaries = new SnapshotBoundaries();
    private volatile BuiltHead built;
    private volatile long lastUsedNanos = System.nanoTime();

    TableHead(TableIdentifier id) {
      this.id = id;
    }

    TableMetadata load(Table table, TableMetadata base, String topic, LoadTimings timings) {
      long started = System.nanoTime();
      lastUsedNanos = started;
      if (built != null && folders.lapsed(built.ops().folder())) {
        // Other head views may take its files for leftovers: serve a new head instead.
        retire(built);
        built = null;
      }
      Map<Integer, Long> committedEnds = boundaries.of(table, base);
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
        HeadPlan plan =
            HeadPlanner.plan(
                built == null ? null : built.cached(base),
                new HeadPlanner.Found(
                    base.metadataFileLocation(),
                    () -> HeadPlanner.TableShape.of(ViewOperations.viewMetadata(base)),
                    committedEnds,
                    info.partitions(),
                    offsets.start(),
                    offsets.end()));
        switch (plan.action()) {
          case REUSE -> {}
          case EXTEND -> {
            built = append(topic, built, plan, timings);
            log(started, "extended", plan.appendFrom(), plan.to());
          }
          case REBUILD -> {
            rebuild(table, base, topic, plan, timings);
            String what =
                plan.kept().isEmpty()
                    ? "built"
                    : "rebuilt keeping " + plan.kept().size() + " files";
            log(started, what, plan.from(), plan.to());
          }
        }
        return built.metadata();
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

    /** A fresh view on {@code base}; the old head is retired, without the files carried over. */
    private void rebuild(
        Table table, TableMetadata base, String topic, HeadPlan plan, LoadTimings timings) {
      String root = scratchRoot(base);
      String folder = folders.folderUnder(root);
      leftovers.scanOnce(table.io(), root);
      folders.claim(folder, table.io());
      BuiltHead old = built;
      built = null;
      BuiltHead fresh =
          new BuiltHead(
              base.metadataFileLocation(),
              base,
              plan.from(),
              Map.of(),
              new ViewOperations(
                  ViewOperations.viewMetadata(base), table.io(), folder + "/" + UUID.randomUUID()),
              List.of());
      try {
        built = append(topic, fresh, plan, timings);
      } finally {
        if (old != null) {
          // The files the new head carries over are its own now; if building it failed, they all
          // go.
          retire(built != null ? old.withFiles(plan.dropped()) : old);
        }
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

    /**
     * Writes the records of the plan's reads as head files and appends them, with the plan's kept
     * files of an earlier head, to the view of {@code prior} in one snapshot whose summary names
     * the offsets appended.
     */
    private BuiltHead append(String topic, BuiltHead prior, HeadPlan plan, LoadTimings timings) {
      ViewOperations ops = prior.ops();
      BaseTable view = new BaseTable(ops, id.toString(), report -> {});
      EvolvingHeadWrite writer = new EvolvingHeadWrite(view, config.headWriteProperties(), codecs);
      timings.mark("write-setup");
      List<HeadFile> written = writer.write(kafka, topic, plan.reads());
      // What this load wrote, deleted if it ends without a snapshot naming it
      List<String> wrote = new ArrayList<>(HeadFile.locationsOf(written));
      List<HeadFile> carried = new ArrayList<>(plan.kept());
      List<HeadFile> files = new ArrayList<>(prior.files());
      try {
        carried.addAll(writer.trim(plan.trimmed(), wrote::add));
        timings.mark("kafka-read", "parquet-write", writer.writeNanos());
        files.addAll(carried);
        files.addAll(written);
        if (written.isEmpty() && carried.isEmpty()) {
          return new BuiltHead(
              prior.baseLocation(),
              prior.metadata(),
              prior.from(),
              Map.copyOf(plan.to()),
              ops,
              List.copyOf(files));
        }
        HeadSnapshot.commit(view, carried, written, plan.offsetsSummary());
      } catch (RuntimeException e) {
        Leftovers.delete(view.io(), wrote);
        throw e;
      }
      timings.mark("append");
      return new BuiltHead(
          prior.baseLocation(),
          ops.current(),
          prior.from(),
          Map.copyOf(plan.to()),
          ops,
          List.copyOf(files));
    }
  }

  /**
   * Where the head files of a table go, every process in a folder of its own: {@code <table
   * location>/floe-head}, or {@code <head.scratch-location>/<table uuid>}.
   */
  private String scratchRoot(TableMetadata base) {
    if (config.scratchLocation() == null) {
      String location =
          base.location().endsWith("/")
              ? base.location().substring(0, base.location().length() - 1)
              : base.location();
      return location + "/floe-head";
    }
    return config.scratchLocation() + "/" + base.uuid();
  }

  private void retire(BuiltHead head) {
    retired.add(head, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(config.cacheTtlMs()));
    if (config.cacheTtlMs() == 0) {
      sweep();
    }
  }

  /** A periodic task that throws is never run again: the markers must go on being rewritten. */
  private void sweepQuietly() {
    try {
      sweep();
    } catch (RuntimeException e) {
      LOG.warn("Sweeping heads failed (trying again later)", e);
    }
  }

  /**
   * Rewrites the markers of this process's folders in use; deletes superseded heads whose grace
   * time is over, and heads not used for the idle TTL.
   */
  void sweep() {
    long now = System.nanoTime();
    long ttl = TimeUnit.MILLISECONDS.toNanos(config.idleTtlMs());
    Set<String> inUse = new HashSet<>();
    for (TableHead h : heads.values()) {
      BuiltHead current = h.built;
      if (current != null) {
        inUse.add(current.ops().folder());
      }
      if (now - h.lastUsedNanos > ttl) {
        synchronized (h) {
          if (h.built != null && now - h.lastUsedNanos > ttl) {
            BuiltHead idle = h.built;
            h.built = null;
            retire(idle);
          }
        }
      }
    }
    retired.addFoldersTo(inUse);
    folders.refresh(inUse);
    retired.deleteDue(now);
  }

  /**
   * Stops serving and background work, and hands over what is left to delete: every head still held
   * (current and superseded) and this process's folders.
   */
  StopCleanup stop() {
    sweeper.shutdownNow();
    leftovers.close();
    List<BuiltHead> all = new ArrayList<>();
    for (TableHead h : heads.values()) {
      synchronized (h) {
        if (h.built != null) {
          all.add(h.built);
          h.built = null;
        }
      }
    }
    all.addAll(retired.drain());
    return new StopCleanup(all, folders.release(), config.leftoverAgeMs());
  }
}
