package io.floe.e2e;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on 127.0.0.1 in front of an HTTP server (S3Proxy) that can be switched to fail:
 * {@link Mode#DOWN} resets every connection as soon as it is accepted (a store that cannot be
 * reached), {@link Mode#HTTP_503} answers every write (PUT, POST, DELETE) with 503 SlowDown while
 * reads still pass (a store that is up but failing), {@link Mode#SLOW} relays every request after a
 * delay ({@link #latency}), {@link Mode#HANG} reads every request and never answers (until the mode
 * changes). Switching to a failing mode cuts the connections already open, and while failing every
 * relayed request carries "Connection: close", so no pooled keep-alive connection slips past the
 * fault.
 */
final class FaultyProxy implements AutoCloseable {
  enum Mode {
    PASS,
    DOWN,
    HTTP_503,
    SLOW,
    HANG
  }

  private static final byte[] SLOW_DOWN =
      ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>SlowDown</Code>"
              + "<Message>Injected by the test's FaultyProxy</Message></Error>")
          .getBytes(StandardCharsets.UTF_8);

  private final InetSocketAddress upstream;
  private final ServerSocket server;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Set<Socket> held = ConcurrentHashMap.newKeySet();
  private volatile long latencyMs = 1_000;
  private final Map<Mode, AtomicLong> faulted = new EnumMap<>(Mode.class);
  private volatile Mode mode = Mode.PASS;

  FaultyProxy(URI upstream) throws IOException {
    this.upstream = new InetSocketAddress(upstream.getHost(), upstream.getPort());
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    for (Mode m : Mode.values()) {
      faulted.put(m, new AtomicLong());
    }
    Thread acceptor = new Thread(this::acceptLoop, "faulty-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  void mode(Mode next) {
    mode = next;
    for (Socket s : held) {
      held.remove(s);
      closeQuietly(s);
    }
    if (next != Mode.PASS) {
      for (Socket s : open) {
        closeQuietly(s);
      }
    }
  }

  /** The delay of every request in {@link Mode#SLOW}. */
  void latency(long millis) {
    latencyMs = millis;
  }

  /**
   * Connections reset (DOWN), writes answered 503 (HTTP_503), requests delayed (SLOW) or left
   * unanswered (HANG) so far.
   */
  long faulted(Mode failing) {
    return faulted.get(failing).get();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return; // closed
      }
      Mode now = mode;
      Thread handler = new Thread(() -> handle(client, now), "faulty-proxy-" + now);
      handler.setDaemon(true);
      handler.start();
    }
  }

  private void handle(Socket client, Mode now) {
    try {
      if (now == Mode.PASS) {
        pipe(client, null);
      } else if (now == Mode.DOWN) {
        faulted.get(now).incrementAndGet();
        client.setSoLinger(true, 0); // close with RST
        client.close();
      } else {
        String head = readHead(client.getInputStream());
        if (head == null) {
          closeQuietly(client);
        } else {
          handleRequest(client, head, now);
        }
      }
    } catch (IOException e) {
      closeQuietly(client);
    } catch (InterruptedException e) {
      closeQuietly(client);
      Thread.currentThread().interrupt();
    }
  }

  private void handleRequest(Socket client, String head, Mode now)
      throws IOException, InterruptedException {
    byte[] closing = closingConnection(head).getBytes(StandardCharsets.US_ASCII);
    switch (now) {
      case SLOW -> {
        faulted.get(now).incrementAndGet();
        Thread.sleep(latencyMs);
        pipe(client, closing);
      }
      case HANG -> {
        faulted.get(now).incrementAndGet();
        held.add(client); // answered by nobody; closed when the mode changes
        if (mode != Mode.HANG && held.remove(client)) {
          closeQuietly(client);
        }
      }
      default -> {
        if (head.startsWith("GET ") || head.startsWith("HEAD ")) {
          pipe(client, closing);
        } else {
          answerSlowDown(client, head);
        }
      }
    }
  }

  private static String closingConnection(String head) {
    StringBuilder out = new StringBuilder();
    for (String line : head.substring(0, head.length() - 4).split("\r\n")) {
      if (!line.toLowerCase(Locale.ROOT).startsWith("connection:")) {
        out.append(line).append("\r\n");
      }
    }
    return out.append("Connection: close\r\n\r\n").toString();
  }

  private void answerSlowDown(Socket client, String head) throws IOException {
    try (client) {
      InputStream in = client.getInputStream();
      // Drain a body the client sends without waiting for 100-continue, so it reads our answer, not
      // a reset.
      String lower = head.toLowerCase(Locale.ROOT);
      if (!lower.contains("expect: 100-continue")) {
        long length = contentLength(lower);
        in.skipNBytes(Math.min(length, 64L * 1024 * 1024));
      }
      faulted.get(Mode.HTTP_503).incrementAndGet();
      OutputStream out = client.getOutputStream();
      out.write(
          ("HTTP/1.1 503 Slow Down\r\nContent-Type: application/xml\r\nContent-Length: "
                  + SLOW_DOWN.length
                  + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.write(SLOW_DOWN);
      out.flush();
    }
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    int b;
    while ((b = in.read()) >= 0) {
      head.write(b);
      matched = (b == '\r' || b == '\n') ? matched + 1 : 0;
      if (matched == 4) {
        return head.toString(StandardCharsets.US_ASCII);
      }
    }
    return null;
  }

  private static long contentLength(String lowerCaseHead) {
    for (String line : lowerCaseHead.split("\r\n")) {
      if (line.startsWith("content-length:")) {
        return Long.parseLong(line.substring("content-length:".length()).trim());
      }
    }
    return 0;
  }

  /** Relays the connection, {@code head} (already read from the client) first. */
  private void pipe(Socket client, byte[] head) throws IOException {
    Socket target = new Socket();
    try {
      target.connect(upstream, 5_000);
      if (head != null) {
        target.getOutputStream().write(head);
      }
    } catch (IOException e) {
      closeQuietly(client);
      closeQuietly(target);
      throw e;
    }
    open.add(client);
    open.add(target);
    Thread back = new Thread(() -> copy(target, client), "faulty-proxy-back");
    back.setDaemon(true);
    back.start();
    copy(client, target);
  }

  private void copy(Socket from, Socket to) {
    byte[] buffer = new byte[64 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
      }
    } catch (IOException e) {
      // the other side or a mode switch closed the connection
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private void closeQuietly(Socket s) {
    open.remove(s);
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : open) {
      closeQuietly(s);
    }
    for (Socket s : held) {
      closeQuietly(s);
    }
  }
}
