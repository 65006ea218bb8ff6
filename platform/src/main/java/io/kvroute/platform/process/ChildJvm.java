package io.kvroute.platform.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A Java process started by kvroute (broker, registry), with its output in a log file. It is
 * ended by its own handle only, and on JVM exit by a shutdown hook, never by name.
 */
public final class ChildJvm implements AutoCloseable {
    private final String name;
    private final Process process;
    private final Path log;
    private final Thread shutdownHook;

    private ChildJvm(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
        this.shutdownHook = new Thread(process::destroy, "stop-" + name);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    public static ChildJvm start(String name, List<String> jvmArgs, String classpathOrNull, String mainOrJar,
                                 List<String> args, Path workDir, Path log) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmArgs);
        if (classpathOrNull != null) {
            command.add("-cp");
            command.add(classpathOrNull);
            command.add(mainOrJar);
        } else {
            command.add("-jar");
            command.add(mainOrJar);
        }
        command.addAll(args);
        try {
            Process process = new ProcessBuilder(command)
                    .directory(workDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            return new ChildJvm(name, process, log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + e.getMessage(), e);
        }
    }

    /** Waits until {@code ready} holds, failing early (with the log's path) if the process dies. */
    public void awaitReady(BooleanSupplier ready, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with status " + process.exitValue() + " during start-up; see " + log);
            }
            boolean isReady;
            try {
                isReady = ready.getAsBoolean();
            } catch (RuntimeException e) {
                close();
                throw e;
            }
            if (isReady) {
                return;
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                close();
                throw new IllegalStateException("interrupted waiting for " + name, e);
            }
        }
        close();
        throw new IllegalStateException(name + " was not ready within " + timeout + "; see " + log);
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path log() {
        return log;
    }

    /** Kills the process without a clean shutdown, as a crash would. */
    public void kill() {
        process.destroyForcibly();
        waitFor(Duration.ofSeconds(10));
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroy();
            if (!waitFor(Duration.ofSeconds(15))) {
                process.destroyForcibly();
                waitFor(Duration.ofSeconds(5));
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException ignored) {
            // the JVM is already shutting down; the hook runs anyway
        }
    }

    private boolean waitFor(Duration timeout) {
        try {
            return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    public static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static boolean portOpen(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
