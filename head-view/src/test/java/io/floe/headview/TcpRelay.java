package io.floe.headview;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A TCP relay on 127.0.0.1 in front of a local server that can go silent: once {@link #mute()}d it
 * still accepts connections and reads what clients send, but nothing reaches the server and no
 * answer comes back, as with an object store that hangs instead of refusing connections.
 */
final class TcpRelay implements AutoCloseable {
  private final ServerSocket server;
  private final int targetPort;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final ExecutorService threads =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "tcp-relay");
            t.setDaemon(true);
            return t;
          });
  private volatile boolean muted;

  TcpRelay(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    threads.execute(this::accept);
  }

  int port() {
    return server.getLocalPort();
  }

  void mute() {
    muted = true;
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        sockets.add(client);
        threads.execute(() -> relay(client));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void relay(Socket client) {
    try (Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort)) {
      sockets.add(upstream);
      threads.execute(() -> pipe(client, upstream));
      pipe(upstream, client);
    } catch (IOException e) {
      // the relay or a peer closed
    }
  }

  private void pipe(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        if (!muted) {
          out.write(buffer, 0, n);
          out.flush();
        }
      }
    } catch (IOException e) {
      // closed
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
    threads.shutdownNow();
  }
}
