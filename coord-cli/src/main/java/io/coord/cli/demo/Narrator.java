package io.coord.cli.demo;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * The demo's output: one line per event, each with the time since the start, and a progress
 * line. On a terminal the progress line stays at the bottom and is redrawn in place; elsewhere
 * (a pipe, a test) it is printed as an ordinary line when it has changed, at most every few seconds.
 */
final class Narrator {
    private static final long PLAIN_PROGRESS_EVERY_NANOS = 3_000_000_000L;

    private final PrintWriter out;
    private final boolean terminal;
    private final long start = System.nanoTime();
    private String progress;
    private String lastPrintedProgress;
    private long lastProgressAt;

    Narrator(PrintWriter out, boolean terminal) {
        this.out = out;
        this.terminal = terminal;
    }

    double elapsedSeconds() {
        return (System.nanoTime() - start) / 1e9;
    }

    /** One event line. */
    synchronized void event(String text) {
        clearProgress();
        out.println(String.format(Locale.ROOT, "%6.1fs  %s", elapsedSeconds(), text));
        drawProgress();
        out.flush();
    }

    /** Replaces the progress line. */
    synchronized void progress(String text) {
        if (text.equals(progress)) {
            return;
        }
        progress = text;
        if (terminal) {
            clearProgress();
            drawProgress();
        } else if (System.nanoTime() - lastProgressAt >= PLAIN_PROGRESS_EVERY_NANOS && !text.equals(lastPrintedProgress)) {
            out.println(String.format(Locale.ROOT, "%6.1fs  %s", elapsedSeconds(), text));
            lastPrintedProgress = text;
            lastProgressAt = System.nanoTime();
        }
        out.flush();
    }

    /** Ends the progress line (before the summary); off a terminal, its last state is printed if it was not yet. */
    synchronized void endProgress() {
        if (terminal) {
            clearProgress();
            drawProgress();
            out.println();
        } else if (progress != null && !progress.equals(lastPrintedProgress)) {
            out.println(String.format(Locale.ROOT, "%6.1fs  %s", elapsedSeconds(), progress));
        }
        progress = null;
        out.flush();
    }

    /** A line without a time (headers, the summary). */
    synchronized void plain(String text) {
        clearProgress();
        out.println(text);
        drawProgress();
        out.flush();
    }

    private void clearProgress() {
        if (terminal && progress != null) {
            out.print("\r\033[K");
        }
    }

    private void drawProgress() {
        if (terminal && progress != null) {
            out.print(String.format(Locale.ROOT, "%6.1fs  %s", elapsedSeconds(), progress));
        }
    }
}
