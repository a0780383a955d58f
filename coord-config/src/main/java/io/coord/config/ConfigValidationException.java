package io.coord.config;

import io.coord.CoordException;
import java.util.List;

/**
 * A value is well-formed JSON of the right type but a {@link ConfigKey.Validator} refused it. From
 * a writer: nothing was published. From a reader: the update was not applied (see
 * {@link ConfigRejection}). Final: the same value will be refused again.
 */
public class ConfigValidationException extends CoordException {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final List<String> problems;

    public ConfigValidationException(String path, List<String> problems) {
        super("value for " + path + " is invalid: " + String.join("; ", problems));
        this.path = path;
        this.problems = List.copyOf(problems);
    }

    public String path() {
        return path;
    }

    /** What the validator said, one entry per problem. */
    public List<String> problems() {
        return problems;
    }
}
