package io.coord.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Parses {@code 500ms}, {@code 5s}, {@code 2m} or ISO-8601 ({@code PT5S}) into a positive {@link Duration}. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");

    @Override
    public Duration convert(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        Duration d;
        Matcher m = SHORT.matcher(v);
        try {
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                d = switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    default -> Duration.ofHours(n);
                };
            } else {
                d = Duration.parse(value.trim().toUpperCase(Locale.ROOT));
            }
        } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
            throw new CommandLine.TypeConversionException("'" + value + "' is not a duration: use 500ms, 5s, 2m or ISO-8601 (PT5S)");
        }
        if (d.isZero() || d.isNegative()) {
            throw new CommandLine.TypeConversionException("'" + value + "' must be a positive duration");
        }
        return d;
    }

    /** The same, with zero allowed ({@code 0s}, {@code 0}): for thresholds where zero means off, or report everything. */
    static final class OrZero implements CommandLine.ITypeConverter<Duration> {
        private static final Pattern ZERO = Pattern.compile("0+\\s*(ms|s|m|h)?");

        @Override
        public Duration convert(String value) {
            return ZERO.matcher(value.trim().toLowerCase(Locale.ROOT)).matches() ? Duration.ZERO : new DurationConverter().convert(value);
        }
    }
}
