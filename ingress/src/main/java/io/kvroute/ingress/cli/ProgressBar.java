package io.kvroute.ingress.cli;

import java.io.PrintWriter;
import java.util.function.LongSupplier;

/**
 * A one-line text progress bar redrawn in place with carriage returns, at most every
 * {@code minIntervalMs}. Disabled (prints nothing) unless asked for or stderr is a terminal,
 * so logs and pipes are not filled with redraws. A total of -1 shows a plain counter.
 */
public final class ProgressBar {
    public static final long DEFAULT_INTERVAL_MS = 200;
    private static final int WIDTH = 30;

    private final PrintWriter out;
    private final boolean enabled;
    private final String label;
    private final LongSupplier nowMs;
    private final long minIntervalMs;
    private long total;
    private long lastDrawMs = Long.MIN_VALUE;
    private boolean drawn;

    public ProgressBar(PrintWriter out, boolean enabled, String label, long total, LongSupplier nowMs, long minIntervalMs) {
        this.out = out;
        this.enabled = enabled;
        this.label = label;
        this.total = total;
        this.nowMs = nowMs;
        this.minIntervalMs = minIntervalMs;
    }

    /** Whether to draw: when asked explicitly, or when there is an interactive console. */
    public static boolean wanted(Boolean requested) {
        return requested != null ? requested : interactive();
    }

    private static boolean interactive() {
        java.io.Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            // JDK 22+ returns a console even when redirected; isTerminal() tells the difference
            return (Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true;
        }
    }

    public void total(long newTotal) {
        this.total = newTotal;
    }

    public void update(long done) {
        if (!enabled) {
            return;
        }
        long now = nowMs.getAsLong();
        if (drawn && now - lastDrawMs < minIntervalMs && done != total) {
            return;
        }
        lastDrawMs = now;
        drawn = true;
        out.print('\r' + render(done));
        out.flush();
    }

    /** Ends the drawn line so another message can be printed; the next update redraws below it. */
    public void finishLineIfDrawn() {
        if (enabled && drawn) {
            out.println();
            drawn = false;
        }
    }

    public void finish(long done) {
        if (!enabled) {
            return;
        }
        out.print('\r' + render(done) + System.lineSeparator());
        out.flush();
    }

    String render(long done) {
        if (total < 0) {
            return label + " " + done;
        }
        long shown = Math.min(done, total);
        int filled = total == 0 ? WIDTH : (int) (shown * WIDTH / total);
        int percent = total == 0 ? 100 : (int) (shown * 100 / total);
        return label + " [" + "#".repeat(filled) + "-".repeat(WIDTH - filled) + "] " + done + "/" + total + " " + percent + "%";
    }
}
