package io.coord.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a refused {@code coord.*} property into Spring Boot's startup report, property first. */
class InvalidCoordPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidCoordPropertyException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidCoordPropertyException cause) {
        return new FailureAnalysis(cause.getMessage(),
                "Fix the property " + cause.property() + " in the application's configuration"
                        + " (application.properties or .yaml, an environment variable, a command-line argument).",
                cause);
    }
}
