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
 * A Java process started by kvroute (broker, registry, or a router or worker run apart), with its output in a log file. It is
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
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
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

    /** Stops the process in place (SIGSTOP): alive, holding its sockets, making no progress, as a hung process does. */
    public void pause() {
        signal("STOP");
    }

    /** Lets a {@link #pause() paused} process run on (SIGCONT). */
    public void resume() {
        signal("CONT");
    }

    private void signal(String name) {
        if (!process.isAlive()) {
            return;
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).redirectErrorStream(true).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " (" + this.name + ") failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot signal " + this.name + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted signalling " + this.name, e);
        }
    }

    /** Kills the process without a clean shutdown, as a crash would. */
    public void kill() {
        process.destroyForcibly();
        waitFor(Duration.ofSeconds(10));
        removeShutdownHook();
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
        removeShutdownHook();
    }

    private void removeShutdownHook() {
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

    /** This JVM's classpath with absolute entries, for a child that runs in its own directory. */
    public static String currentClasspath() {
        return java.util.Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .map(entry -> Path.of(entry).toAbsolutePath().toString())
                .collect(java.util.stream.Collectors.joining(java.io.File.pathSeparator));
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
