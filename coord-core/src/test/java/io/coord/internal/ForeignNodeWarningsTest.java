package io.coord.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordPath;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;

/** A foreign node is returned every time it is checked, and logged at WARN once, with a bound on what is remembered. */
class ForeignNodeWarningsTest {
    /** Keeps what was logged (a real SLF4J logger, recording instead of printing). */
    static final class RecordingLogger extends LegacyAbstractLogger {
        private static final long serialVersionUID = 1L;
        final List<String> warnings = new ArrayList<>();

        @Override
        protected String getFullyQualifiedCallerName() {
            return null;
        }

        @Override
        protected void handleNormalizedLoggingCall(Level level, Marker marker, String pattern, Object[] args, Throwable t) {
            if (level == Level.WARN) {
                warnings.add(MessageFormatter.basicArrayFormat(pattern, args));
            }
        }

        @Override
        public boolean isTraceEnabled() {
            return true;
        }

        @Override
        public boolean isDebugEnabled() {
            return true;
        }

        @Override
        public boolean isInfoEnabled() {
            return true;
        }

        @Override
        public boolean isWarnEnabled() {
            return true;
        }

        @Override
        public boolean isErrorEnabled() {
            return true;
        }
    }

    private static final CoordPath DIR = CoordPath.of("queues", "jobs", "tasks");

    @Test
    void everyCheckReturnsTheForeignNodesButEachIsLoggedOnceNamingItAndWhatIsExpected() {
        RecordingLogger log = new RecordingLogger();
        ForeignNodeWarnings w = new ForeignNodeWarnings(log, "queue 'jobs'");

        for (int i = 0; i < 3; i++) {
            assertEquals(List.of("oops", "x y"), w.check(DIR, List.of("task-0000000001", "oops", "x y"), n -> n.startsWith("task-"), "task-{seq}"));
        }

        assertEquals(2, log.warnings.size(), "one warning per foreign node: " + log.warnings);
        assertTrue(log.warnings.get(0).contains("queue 'jobs'") && log.warnings.get(0).contains("/queues/jobs/tasks/oops")
                && log.warnings.get(0).contains("task-{seq}"), log.warnings.get(0));
        assertTrue(log.warnings.get(1).contains("/queues/jobs/tasks/x y"), "a name that is not a valid Coord name is still named: " + log.warnings);
    }

    @Test
    void aFloodOfForeignNodesIsRememberedOnlyUpToTheBoundThenSaidOnce() {
        RecordingLogger log = new RecordingLogger();
        ForeignNodeWarnings w = new ForeignNodeWarnings(log, "queue 'jobs'");
        List<String> flood = IntStream.range(0, ForeignNodeWarnings.REMEMBERED + 50).mapToObj(i -> "junk-" + i).toList();

        assertEquals(flood, w.check(DIR, flood, n -> false, "task-{seq}"), "every foreign node is still returned");
        w.check(DIR, List.of("junk-late"), n -> false, "task-{seq}");

        assertEquals(ForeignNodeWarnings.REMEMBERED + 1, log.warnings.size());
        assertTrue(log.warnings.get(log.warnings.size() - 1).contains("no more are logged"), log.warnings.get(log.warnings.size() - 1));
    }
}
