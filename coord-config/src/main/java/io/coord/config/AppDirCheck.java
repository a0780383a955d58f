package io.coord.config;

import io.coord.CoordPath;
import io.coord.internal.ForeignNodeWarnings;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a whole-app reader expects in {@code /config/{app}}: its type's keys and Coord's own
 * {@code .history} and {@code .canary}. Anything else there (a typo'd key such as {@code timout},
 * another tool's node) is a value no field will ever get: it is logged at WARN once, naming it,
 * never passed over in silence.
 */
final class AppDirCheck {
    private static final Logger LOG = LoggerFactory.getLogger(AppDirCheck.class);

    private final CoordPath dir;
    private final Set<String> understood;
    private final String expected;
    private final ForeignNodeWarnings warnings;

    AppDirCheck(ConfigKey<?> key) {
        this.dir = ConfigLayout.app(key.app());
        this.understood = new TreeSet<>(key.keys());
        this.understood.add(ConfigLayout.HISTORY);
        this.understood.add(ConfigLayout.CANARY);
        this.expected = "the keys of " + key.type().getSimpleName() + " " + new TreeSet<>(key.keys()) + ", "
                + ConfigLayout.HISTORY + " and " + ConfigLayout.CANARY;
        this.warnings = new ForeignNodeWarnings(LOG, "config app '" + key.app() + "' (read whole as "
                + key.type().getSimpleName() + ")");
    }

    CoordPath dir() {
        return dir;
    }

    /** The children of {@link #dir()} that are not understood, each logged at WARN the first time it is seen. */
    List<String> check(List<String> children) {
        return warnings.check(dir, children, understood::contains, expected);
    }
}
