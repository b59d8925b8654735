package io.floe.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.floe.commit.SegmentCommitter;
import io.floe.fetch.StoredSegment;
import io.floe.layout.TopicTableOptions;
import io.floe.manifest.BatchDirectory;
import io.floe.rows.PayloadCounts;
import io.floe.rows.TableCodecs;
import io.floe.tier.SegmentFiles;
import io.floe.tier.SegmentKey;
import io.floe.tier.TieredSegments;
import io.floe.tier.TopicTables;
import io.floe.typed.ColumnFormat;
import io.floe.typed.SchemaLookup;
import io.floe.typed.SchemaText;
import io.floe.typed.SchemaUnavailableException;
import io.floe.typed.TypedRules;
import io.floe.typed.WireFormat;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.iceberg.Table;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * Typed values against binary mode on the same records: order records (a dozen fields: ids,
 * strings, an enum, doubles, a timestamp, a nested record, an array of records, an optional field)
 * written by Avro's GenericDatumWriter in the schema registry wire format, and the same orders as
 * JSON written by Jackson (properties in schema order, absent optional properties omitted), in
 * zstd-compressed producer batches. Each segment is copied into a binary table and into a typed
 * table (writer schemas from an in-memory lookup: the registry is not what is measured), then
 * fetched whole from position 0. Copy CPU is the copying thread's CPU time; catch-up is the wall
 * time of opening the segment and reading the whole fetch stream. Figures are medians over repeats.
 */
final class TypedBench {
  private static final int AVRO_ID = 101;
  private static final int JSON_ID = 201;
  private static final int PER_BATCH = 32;
  private static final double MIB = 1024.0 * 1024;

  static final String AVRO_SCHEMA =
      "{\"type\":\"record\",\"name\":\"Order\",\"namespace\":\"shop\",\"fields\":["
          + "{\"name\":\"orderId\",\"type\":\"long\"},"
          + "{\"name\":\"customerId\",\"type\":\"long\"},"
          + "{\"name\":\"customerName\",\"type\":\"string\"},"
          + "{\"name\":\"email\",\"type\":\"string\"},"
          + "{\"name\":\"status\",\"type\":{\"type\":\"enum\",\"name\":\"Status\","
          + "\"symbols\":[\"NEW\",\"PAID\",\"SHIPPED\",\"DELIVERED\",\"CANCELLED\"]}},"
          + "{\"name\":\"currency\",\"type\":\"string\"},"
          + "{\"name\":\"total\",\"type\":\"double\"},"
          + "{\"name\":\"tax\",\"type\":\"double\"},"
          + "{\"name\":\"createdAt\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}},"
          + "{\"name\":\"shipping\",\"type\":{\"type\":\"record\",\"name\":\"Address\",\"fields\":["
          + "{\"name\":\"street\",\"type\":\"string\"},{\"name\":\"city\",\"type\":\"string\"},"
          + "{\"name\":\"postalCode\",\"type\":\"string\"},{\"name\":\"country\",\"type\":\"string\"}]}},"
          + "{\"name\":\"lines\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\","
          + "\"name\":\"Line\",\"fields\":[{\"name\":\"sku\",\"type\":\"string\"},"
          + "{\"name\":\"quantity\",\"type\":\"int\"},{\"name\":\"unitPrice\",\"type\":\"double\"}]}}},"
          + "{\"name\":\"coupon\",\"type\":[\"null\",\"string\"],\"default\":null},"
          + "{\"name\":\"gift\",\"type\":\"boolean\"}]}";

  static final String JSON_SCHEMA =
      "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"title\":\"Order\","
          + "\"type\":\"object\",\"properties\":{"
          + "\"orderId\":{\"type\":\"integer\"},"
          + "\"customerId\":{\"type\":\"integer\"},"
          + "\"customerName\":{\"type\":\"string\"},"
          + "\"email\":{\"type\":\"string\"},"
          + "\"status\":{\"enum\":[\"NEW\",\"PAID\",\"SHIPPED\",\"DELIVERED\",\"CANCELLED\"]},"
          + "\"currency\":{\"type\":\"string\"},"
          + "\"total\":{\"type\":\"number\"},"
          + "\"tax\":{\"type\":\"number\"},"
          + "\"createdAt\":{\"type\":\"string\",\"format\":\"date-time\"},"
          + "\"shipping\":{\"type\":\"object\",\"properties\":{"
          + "\"street\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"},"
          + "\"postalCode\":{\"type\":\"string\"},\"country\":{\"type\":\"string\"}}},"
          + "\"lines\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
          + "\"sku\":{\"type\":\"string\"},\"quantity\":{\"type\":\"integer\"},"
          + "\"unitPrice\":{\"type\":\"number\"}}}},"
          + "\"coupon\":{\"type\":[\"string\",\"null\"]},"
          + "\"gift\":{\"type\":\"boolean\"}}}";

  private static final String[] FIRST = {
    "Ada", "Bob", "Chloé", "Dmitri", "Eva", "Fatima", "Günter", "Hiro", "Inès", "Jonas", "Kai",
    "Łukasz", "Maya", "Noah", "Olga", "Priya"
  };
  private static final String[] LAST = {
    "Lovelace",
    "Martin",
    "Dubois",
    "Ivanov",
    "Schmidt",
    "Haddad",
    "Müller",
    "Tanaka",
    "García",
    "Berg",
    "Nowak",
    "Rossi",
    "Okafor",
    "Smith"
  };
  private static final String[] CITIES = {
    "Lyon",
    "Berlin",
    "Kraków",
    "Osaka",
    "Porto",
    "São Paulo",
    "Toronto",
    "Nairobi",
    "Oslo",
    "Austin"
  };
  private static final String[] COUNTRIES = {"FR", "DE", "PL", "JP", "PT", "BR", "CA", "KE", "NO"};
  private static final String[] STREETS = {"Main St", "Rue de la Paix", "Hauptstraße", "Elm Ave"};
  private static final String[] CURRENCIES = {"EUR", "USD", "GBP", "JPY", "PLN"};
  private static final String[] COUPONS = {"SPRING10", "WELCOME", "FREESHIP", "VIP-2026"};
  private static final DateTimeFormatter ISO_MILLIS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  private TypedBench() {}

  /**
   * One format's segment (its path, size and record count) and the two topics it is copied under.
   */
  private record Format(
      String name,
      int records,
      Path log,
      long bytes,
      String binary,
      String typed,
      ColumnFormat.Format format,
      String schema) {}

  /** Medians of the Parquet floor of the typed side ({@link TypedFloorRows}). */
  private record Floor(double copyCpuSeconds, double readSeconds) {}

  /** Medians of one side (binary or typed) of one format. */
  private record Side(
      double copySeconds,
      double copyCpuSeconds,
      double catchUpSeconds,
      long served,
      long storedBytes,
      PayloadCounts payloads) {}

  /** Runs the typed workload against {@code catalog}; figures for the report's "typed" object. */
  static Map<String, Object> run(JdbcCatalog catalog, Path dir, boolean quick) throws Exception {
    long started = System.nanoTime();
    int records = quick ? 12_000 : 100_000;
    int warmRounds = quick ? 1 : 2;
    int repeats = quick ? 3 : 5;
    TieredSegments segments =
        new TieredSegments(
            new TopicTables(catalog, TopicTableOptions.builder().typedRules(rules()).build()),
            new SegmentCommitter(),
            BatchDirectory.DEFAULT_INDEX_INTERVAL_BYTES,
            new TableCodecs(lookup()));
    Path avroLog = dir.resolve("typed-avro.log");
    Path jsonLog = dir.resolve("typed-json.log");
    long[] javaForms = new long[1];
    long[] sizes = generate(avroLog, jsonLog, records, 7, javaForms);
    Format avro =
        new Format(
            "avro",
            records,
            avroLog,
            sizes[0],
            "binary-bench.avro",
            "typed-bench.avro",
            ColumnFormat.Format.AVRO,
            AVRO_SCHEMA);
    Format json =
        new Format(
            "json",
            records,
            jsonLog,
            sizes[1],
            "binary-bench.json",
            "typed-bench.json",
            ColumnFormat.Format.JSON_SCHEMA,
            JSON_SCHEMA);

    // warm-up (and first copies: tables created, schemas stored), unmeasured, on the same segments
    for (Format f : List.of(avro, json)) {
      for (int round = 0; round < warmRounds; round++) {
        for (String topic : List.of(f.binary(), f.typed())) {
          SegmentKey key = key(topic, 100 + round);
          segments.copy(key, SegmentFiles.of(f.log(), 0));
          fetch(segments, key);
        }
      }
      checkSameBytes(segments, f);
    }

    Map<String, Object> out = new LinkedHashMap<>();
    out.put(
        "workload",
        records
            + " orders (13 fields: ids, strings, enum, doubles, timestamp-millis, nested record,"
            + " array of records, optional field) per segment, "
            + PER_BATCH
            + "-record zstd batches; Avro by GenericDatumWriter in the registry wire format,"
            + " JSON by Jackson in schema order; each copied into a binary and a typed table;"
            + " medians of "
            + repeats
            + " runs; copy CPU is the copying thread's CPU time");
    Map<String, Map<String, Object>> perFormat = new LinkedHashMap<>();
    for (Format f : List.of(avro, json)) {
      Side[] sides = measure(segments, f, repeats);
      Map<String, Object> figures = figures(f, sides[0], sides[1]);
      putFloor(figures, f, sides[1], floor(segments, f, repeats));
      if (f == json) {
        figures.put("java_number_form_share", FloeBench.round(javaForms[0] / (double) f.records()));
      }
      perFormat.put(f.name(), figures);
      System.out.println("typed " + f.name() + ": " + figures);
    }
    for (String k :
        List.of(
            "copy_cpu_vs_binary",
            "catchup_vs_binary",
            "stored_bytes_vs_binary",
            "raw_kept_share",
            "copy_cpu_vs_floor",
            "catchup_vs_read_floor")) {
      double a = (Double) perFormat.get("avro").get(k);
      double j = (Double) perFormat.get("json").get(k);
      out.put(k, k.startsWith("catchup_vs") ? Math.min(a, j) : Math.max(a, j));
    }
    out.putAll(perFormat);
    out.put("seconds", FloeBench.round((System.nanoTime() - started) / 1e9));
    Files.delete(avroLog);
    Files.delete(jsonLog);
    return out;
  }

  private static Map<String, Object> figures(Format f, Side binary, Side typed) {
    double mib = f.bytes() / MIB;
    double gib = mib / 1024;
    PayloadCounts p = typed.payloads();
    long all = p.ok() + p.inexact() + p.undecodable();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("copy_cpu_vs_binary", FloeBench.round(typed.copyCpuSeconds() / binary.copyCpuSeconds()));
    m.put(
        "catchup_vs_binary",
        FloeBench.round(
            (typed.served() / typed.catchUpSeconds())
                / (binary.served() / binary.catchUpSeconds())));
    m.put(
        "stored_bytes_vs_binary",
        FloeBench.round(typed.storedBytes() / (double) binary.storedBytes()));
    m.put(
        "raw_kept_share",
        all == 0 ? 1.0 : FloeBench.round((p.inexact() + p.undecodable()) / (double) all));
    m.put("records", f.records());
    m.put("segment_mib", FloeBench.round(mib));
    m.put("typed_copy_mib_per_s", FloeBench.round(mib / typed.copySeconds()));
    m.put("binary_copy_mib_per_s", FloeBench.round(mib / binary.copySeconds()));
    m.put("typed_copy_cpu_s_per_gib", FloeBench.round(typed.copyCpuSeconds() / gib));
    m.put("binary_copy_cpu_s_per_gib", FloeBench.round(binary.copyCpuSeconds() / gib));
    m.put(
        "typed_catchup_mib_per_s", FloeBench.round(typed.served() / MIB / typed.catchUpSeconds()));
    m.put(
        "binary_catchup_mib_per_s",
        FloeBench.round(binary.served() / MIB / binary.catchUpSeconds()));
    m.put("typed_stored_mib", FloeBench.round(typed.storedBytes() / MIB));
    m.put("binary_stored_mib", FloeBench.round(binary.storedBytes() / MIB));
    m.put("typed_ok", p.ok());
    m.put("typed_inexact", p.inexact());
    m.put("typed_undecodable", p.undecodable());
    return m;
  }

  /**
   * The Parquet floor of {@code f}'s typed side, after one unmeasured run: its copy CPU (thread
   * time) and the wall time of reading its files back, medians of {@code repeats} runs.
   */
  private static Floor floor(TieredSegments segments, Format f, int repeats) throws Exception {
    SegmentKey key = key(f.typed(), 0);
    Table table = segments.tables().find(key.topic(), key.topicId());
    TypedFloorRows rows = new TypedFloorRows(table, f.format(), f.schema());
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    double[] copyCpu = new double[repeats];
    double[] read = new double[repeats];
    for (int i = -1; i < repeats; i++) {
      System.gc();
      long cpu0 = threads.getCurrentThreadCpuTime();
      ParquetFloor.Written written =
          ParquetFloor.copy(table, 0, f.log(), "typed-floor-" + f.name() + "-" + i, rows);
      double cpu = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
      System.gc();
      long t0 = System.nanoTime();
      ParquetFloor.read(table, written);
      double wall = (System.nanoTime() - t0) / 1e9;
      ParquetFloor.delete(table, written);
      if (i >= 0) {
        copyCpu[i] = cpu;
        read[i] = wall;
      }
    }
    return new Floor(median(copyCpu), median(read));
  }

  /** The typed side against its Parquet floor. */
  private static void putFloor(Map<String, Object> m, Format f, Side typed, Floor floor) {
    double gib = f.bytes() / MIB / 1024;
    m.put("copy_cpu_vs_floor", FloeBench.round(typed.copyCpuSeconds() / floor.copyCpuSeconds()));
    m.put("floor_copy_cpu_s_per_gib", FloeBench.round(floor.copyCpuSeconds() / gib));
    m.put("catchup_vs_read_floor", FloeBench.round(floor.readSeconds() / typed.catchUpSeconds()));
    m.put("read_floor_mib_per_s", FloeBench.round(f.bytes() / MIB / floor.readSeconds()));
  }

  /**
   * Copies and fetches {@code f}'s segment {@code repeats} times under its binary topic and its
   * typed one, the two sides alternating so that both see the same load: the medians of each side.
   */
  private static Side[] measure(TieredSegments segments, Format f, int repeats) throws Exception {
    List<String> topics = List.of(f.binary(), f.typed());
    double[][] copyWall = new double[2][repeats];
    double[][] copyCpu = new double[2][repeats];
    double[][] fetchWall = new double[2][repeats];
    long[] served = new long[2];
    TieredSegments.CopyResult[] copies = new TieredSegments.CopyResult[2];
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (int i = 0; i < repeats; i++) {
      for (int s = 0; s < 2; s++) {
        System.gc();
        long cpu0 = threads.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        copies[s] = segments.copy(key(topics.get(s), i), SegmentFiles.of(f.log(), 0));
        copyWall[s][i] = (System.nanoTime() - t0) / 1e9;
        copyCpu[s][i] = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
      }
      for (int s = 0; s < 2; s++) {
        System.gc();
        long t0 = System.nanoTime();
        served[s] = fetch(segments, key(topics.get(s), i));
        fetchWall[s][i] = (System.nanoTime() - t0) / 1e9;
      }
    }
    Side[] sides = new Side[2];
    for (int s = 0; s < 2; s++) {
      sides[s] =
          new Side(
              median(copyWall[s]),
              median(copyCpu[s]),
              median(fetchWall[s]),
              served[s],
              copies[s].storedBytes(),
              copies[s].payloads());
    }
    return sides;
  }

  /** Catch-up: the whole segment from position 0, every byte read. */
  private static long fetch(TieredSegments segments, SegmentKey key) throws Exception {
    try (StoredSegment stored = segments.open(key);
        InputStream in = stored.fetch(0)) {
      return in.transferTo(java.io.OutputStream.nullOutputStream());
    }
  }

  /** The typed table serves the same bytes as the binary one (first warm-up copies). */
  private static void checkSameBytes(TieredSegments segments, Format f) throws Exception {
    if (crc(segments, key(f.binary(), 100)) != crc(segments, key(f.typed(), 100))) {
      throw new IllegalStateException("typed fetch of " + f.name() + " differs from binary");
    }
  }

  private static long crc(TieredSegments segments, SegmentKey key) throws Exception {
    CRC32 crc = new CRC32();
    try (StoredSegment stored = segments.open(key);
        InputStream in = stored.fetch(0)) {
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) {
        crc.update(buf, 0, n);
      }
    }
    return crc.getValue();
  }

  private static SegmentKey key(String topic, int partition) {
    return new SegmentKey(
        topic, topic + "-id", partition, 0, topic.replace('.', '-') + "-" + partition);
  }

  private static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  private static TypedRules rules() {
    Map<String, String> config = new LinkedHashMap<>();
    config.put(TypedRules.RULES_CONFIG, "avro,json");
    config.put(TypedRules.RULE_PREFIX + "avro.topics", "typed-bench\\.avro");
    config.put(TypedRules.RULE_PREFIX + "avro.value.format", "avro");
    config.put(TypedRules.RULE_PREFIX + "json.topics", "typed-bench\\.json");
    config.put(TypedRules.RULE_PREFIX + "json.value.format", "json-schema");
    return new TypedRules(new AbstractConfig(TypedRules.define(new ConfigDef()), config), "");
  }

  /** Writer schemas in memory. */
  private static SchemaLookup lookup() {
    Map<Integer, SchemaText> schemas =
        Map.of(
            AVRO_ID, new SchemaText(AVRO_ID, ColumnFormat.Format.AVRO, AVRO_SCHEMA, Map.of()),
            JSON_ID,
                new SchemaText(JSON_ID, ColumnFormat.Format.JSON_SCHEMA, JSON_SCHEMA, Map.of()));
    return new SchemaLookup() {
      @Override
      public SchemaText byId(int schemaId) throws SchemaUnavailableException {
        SchemaText text = schemas.get(schemaId);
        if (text == null) {
          throw new SchemaUnavailableException("no schema " + schemaId);
        }
        return text;
      }

      @Override
      public int latestId(String subject) throws SchemaUnavailableException {
        throw new SchemaUnavailableException("no subject " + subject);
      }
    };
  }

  /**
   * Writes the same {@code count} orders to an Avro segment and a JSON segment; returns their
   * sizes. {@code javaForms[0]} counts JSON records holding a double Jackson writes in Java's form
   * (12.0, 1.0E7) rather than JavaScript's (12, 10000000).
   */
  static long[] generate(Path avroLog, Path jsonLog, int count, long seed, long[] javaForms)
      throws Exception {
    Random rnd = new Random(seed);
    Schema schema = new Schema.Parser().parse(AVRO_SCHEMA);
    GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(schema);
    ObjectMapper mapper = new ObjectMapper();
    ByteArrayOutputStream buf = new ByteArrayOutputStream(1024);
    BinaryEncoder encoder = null;
    byte[] avroPrefix = WireFormat.prefix(AVRO_ID, List.of(), false);
    byte[] jsonPrefix = WireFormat.prefix(JSON_ID, List.of(), false);
    Files.deleteIfExists(avroLog);
    Files.deleteIfExists(jsonLog);
    long timestamp = 1_780_000_000_000L;
    try (FileRecords avroOut = FileRecords.open(avroLog.toFile());
        FileRecords jsonOut = FileRecords.open(jsonLog.toFile())) {
      for (int offset = 0; offset < count; offset += PER_BATCH) {
        MemoryRecordsBuilder a = builder(offset);
        MemoryRecordsBuilder j = builder(offset);
        for (int i = offset; i < Math.min(count, offset + PER_BATCH); i++) {
          timestamp += rnd.nextInt(20);
          GenericRecord order = order(schema, rnd, i, timestamp);
          byte[] key = ("customer-" + order.get("customerId")).getBytes(StandardCharsets.UTF_8);
          buf.reset();
          buf.write(avroPrefix);
          encoder = EncoderFactory.get().binaryEncoder(buf, encoder);
          writer.write(order, encoder);
          encoder.flush();
          a.appendWithOffset(i, timestamp, key, buf.toByteArray());
          buf.reset();
          buf.write(jsonPrefix);
          Map<String, Object> asJson = json(order);
          if (hasJavaNumberForm(asJson)) {
            javaForms[0]++;
          }
          mapper.writeValue(buf, asJson);
          j.appendWithOffset(i, timestamp, key, buf.toByteArray());
        }
        avroOut.append(a.build());
        jsonOut.append(j.build());
      }
      avroOut.flush();
      jsonOut.flush();
      return new long[] {avroOut.sizeInBytes(), jsonOut.sizeInBytes()};
    }
  }

  private static MemoryRecordsBuilder builder(long offset) {
    return MemoryRecords.builder(
        ByteBuffer.allocate(PER_BATCH * 2048),
        RecordBatch.CURRENT_MAGIC_VALUE,
        Compression.zstd().build(),
        TimestampType.CREATE_TIME,
        offset);
  }

  private static GenericRecord order(Schema schema, Random rnd, long id, long timestamp) {
    GenericRecord order = new GenericData.Record(schema);
    long customer = 1_000_000 + rnd.nextInt(50_000);
    String first = FIRST[rnd.nextInt(FIRST.length)];
    String last = LAST[rnd.nextInt(LAST.length)];
    order.put("orderId", 9_000_000_000L + id);
    order.put("customerId", customer);
    order.put("customerName", first + " " + last);
    order.put("email", (first + "." + last + customer).toLowerCase() + "@example.com");
    Schema status = schema.getField("status").schema();
    order.put(
        "status",
        new GenericData.EnumSymbol(
            status, status.getEnumSymbols().get(rnd.nextInt(status.getEnumSymbols().size()))));
    order.put("currency", CURRENCIES[rnd.nextInt(CURRENCIES.length)]);
    Schema lineSchema = schema.getField("lines").schema().getElementType();
    int n = 1 + rnd.nextInt(5);
    List<GenericRecord> lines = new ArrayList<>(n);
    long cents = 0;
    for (int i = 0; i < n; i++) {
      GenericRecord line = new GenericData.Record(lineSchema);
      int quantity = 1 + rnd.nextInt(4);
      int price = 199 + rnd.nextInt(20_000);
      line.put("sku", "SKU-" + (10_000 + rnd.nextInt(90_000)));
      line.put("quantity", quantity);
      line.put("unitPrice", price / 100.0);
      lines.add(line);
      cents += (long) quantity * price;
    }
    order.put("total", cents / 100.0);
    order.put("tax", Math.round(cents * 0.2) / 100.0);
    order.put("createdAt", timestamp);
    GenericRecord address = new GenericData.Record(schema.getField("shipping").schema());
    address.put("street", (1 + rnd.nextInt(200)) + " " + STREETS[rnd.nextInt(STREETS.length)]);
    address.put("city", CITIES[rnd.nextInt(CITIES.length)]);
    address.put("postalCode", String.format("%05d", rnd.nextInt(100_000)));
    address.put("country", COUNTRIES[rnd.nextInt(COUNTRIES.length)]);
    order.put("shipping", address);
    order.put("lines", lines);
    order.put("coupon", rnd.nextInt(4) == 0 ? COUPONS[rnd.nextInt(COUPONS.length)] : null);
    order.put("gift", rnd.nextInt(10) == 0);
    return order;
  }

  /**
   * The order as Jackson gets it from a producer: properties in schema order, the timestamp as
   * JavaScript's toISOString writes it, an absent coupon omitted.
   */
  private static Map<String, Object> json(GenericRecord order) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Schema.Field field : order.getSchema().getFields()) {
      Object value = order.get(field.name());
      if (value == null) {
        continue;
      }
      if (field.name().equals("createdAt")) {
        value = ISO_MILLIS.format(Instant.ofEpochMilli((Long) value));
      } else if (value instanceof GenericRecord r) {
        value = json(r);
      } else if (value instanceof List<?> list) {
        List<Object> items = new ArrayList<>();
        list.forEach(item -> items.add(json((GenericRecord) item)));
        value = items;
      } else if (!(value instanceof Number || value instanceof Boolean)) {
        value = value.toString();
      }
      out.put(field.name(), value);
    }
    return out;
  }

  /** Whether a double in {@code value} prints differently in Java (Jackson) and JavaScript. */
  @SuppressWarnings("unchecked")
  private static boolean hasJavaNumberForm(Object value) {
    if (value instanceof Double d) {
      String java = Double.toString(d);
      return java.endsWith(".0") || java.contains("E");
    }
    if (value instanceof Map<?, ?> m) {
      return m.values().stream().anyMatch(TypedBench::hasJavaNumberForm);
    }
    if (value instanceof List<?> l) {
      return l.stream().anyMatch(TypedBench::hasJavaNumberForm);
    }
    return false;
  }

  /** {@code figures} as a JSON object (strings, numbers and nested maps). */
  @SuppressWarnings("unchecked")
  static String json(Map<String, Object> figures) {
    List<String> fields = new ArrayList<>();
    figures.forEach(
        (k, v) -> {
          String value;
          if (v instanceof Map<?, ?> m) {
            value = json((Map<String, Object>) m);
          } else if (v instanceof String s) {
            value = "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
          } else {
            value = String.valueOf(v);
          }
          fields.add("\"" + k + "\": " + value);
        });
    return "{" + String.join(", ", fields) + "}";
  }
}
