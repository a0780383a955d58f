package io.coord.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns an unreachable ensemble at startup into Spring Boot's startup report: where, and the two ways out. */
class CoordUnreachableFailureAnalyzer extends AbstractFailureAnalyzer<CoordUnreachableException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, CoordUnreachableException cause) {
        return new FailureAnalysis(cause.getMessage(),
                "Make ZooKeeper at " + cause.connectString() + " reachable (or fix coord.connect-string), or set "
                        + CoordConfigProperties.SNAPSHOT_DIR + " so that the application starts without ZooKeeper,"
                        + " its @CoordConfig beans from the values they last read while connected.",
                cause);
    }
}
