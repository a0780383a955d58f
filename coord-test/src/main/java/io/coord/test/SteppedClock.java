package io.coord.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

/**
 * F12: a wall clock the test steps for one child JVM. libfaketime (Debian package {@code faketime})
 * is preloaded into the child and reads its offset from a file this object owns; the child's
 * {@code System.nanoTime} stays real ({@code FAKETIME_DONT_FAKE_MONOTONIC=1}).
 *
 * <p>libfaketime caches the file for a second ({@code FAKETIME_CACHE_DURATION=1}): reading it on
 * every clock call ({@code FAKETIME_NO_CACHE}) makes a JVM start markedly slower, and a step that
 * shows within {@link #LAG} is as good for a fault.
 *
 * <p>The child also gets {@code FAKETIME_FORCE_MONOTONIC_FIX=0}. libfaketime 0.9.10 turns that
 * "fix" on by itself on the glibc of Debian 12 and Ubuntu 22.04 and later, and with it every timed
 * wait of the JVM ({@code Object.wait(ms)}, {@code Condition.await}, the JIT's and GC's own
 * periodic threads) returns at once: the child busy-loops on all its timed waits (measured here: a
 * 5 s loop of {@code wait(50)} made 386,584 waits instead of 100 and burned 5.5 s of CPU), eats
 * most of a 2-core machine, starts in 10-45 s instead of 1, and its recipes' timeouts fire early.
 * Without the fix its waits last as asked and its wall clock still steps.
 */
public final class SteppedClock implements AutoCloseable {
    /** Where Debian's {@code faketime} package puts the library. */
    public static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");
    /** The one line a test or fault prints when it skips for want of the library. */
    public static final String MISSING = "libfaketime is not installed (apt-get install faketime)";
    /**
     * How long a step may take to show in the child: libfaketime re-reads the file once the whole
     * seconds of real time since its last read exceed the cache duration, i.e. after up to 2 s.
     */
    public static final Duration LAG = Duration.ofMillis(2500);

    private final Path offsetFile;
    private volatile Duration offset = Duration.ZERO;

    private SteppedClock(Path offsetFile) {
        this.offsetFile = offsetFile;
    }

    /** Whether libfaketime is installed here. */
    public static boolean available() {
        return Files.isReadable(LIBFAKETIME);
    }

    /** A clock at offset zero; fails with {@link #MISSING} where libfaketime is not installed. */
    public static SteppedClock create() {
        if (!available()) {
            throw new IllegalStateException(MISSING + ": " + LIBFAKETIME + " is missing");
        }
        try {
            SteppedClock clock = new SteppedClock(Files.createTempFile("coord-faketime-", ".txt"));
            clock.write(Duration.ZERO);
            return clock;
        } catch (IOException e) {
            throw new UncheckedIOException("could not create a libfaketime offset file", e);
        }
    }

    /** Makes {@code builder}'s child run on this clock. */
    public ChildJvm.Builder applyTo(ChildJvm.Builder builder) {
        return builder.env("LD_PRELOAD", LIBFAKETIME.toString())
                .env("FAKETIME_TIMESTAMP_FILE", offsetFile.toString())
                .env("FAKETIME_CACHE_DURATION", "1")
                .env("FAKETIME_DONT_FAKE_MONOTONIC", "1")
                .env("FAKETIME_FORCE_MONOTONIC_FIX", "0"); // else every timed wait returns at once (see above)
    }

    /** Sets the child's wall clock to real time plus {@code offset} (negative: behind); shows within {@link #LAG}. */
    public void set(Duration offset) {
        write(offset);
        this.offset = offset;
    }

    /** The offset last {@linkplain #set set}. */
    public Duration offset() {
        return offset;
    }

    private void write(Duration value) {
        long s = value.toSeconds();
        try {
            // write then rename, so the child never reads a half-written offset
            Path tmp = Files.createTempFile(offsetFile.getParent(), "coord-faketime-", ".tmp");
            Files.writeString(tmp, (s < 0 ? "" : "+") + s + "\n");
            Files.move(tmp, offsetFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the libfaketime offset " + value + " to " + offsetFile, e);
        }
    }

    /** Deletes the offset file (a child still running goes on with the last offset it read). Never throws. */
    @Override
    public void close() {
        try {
            Files.deleteIfExists(offsetFile);
        } catch (IOException e) {
            // a temporary file; the OS cleans it eventually
        }
    }

    @Override
    public String toString() {
        return "SteppedClock[" + offset + " via " + offsetFile + "]";
    }
}
