package io.coord.spring.boot;

import io.coord.ConfigurationException;
import io.coord.CoordPath;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Optional;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * One guarded method, read from its annotation and checked once, at startup.
 *
 * @param job  {@code SimpleClassName.method}, for logs and the {@code job} metric tag
 * @param mode leader-only or lock-guarded
 * @param name the election's or the lock's name (one path segment)
 * @param waitFor how long a lock-guarded run waits for the lock; zero for leader-only runs
 */
record JobSpec(String job, Mode mode, String name, Duration waitFor) {
    /** The two guards; {@link #label} is the {@code mode} metric tag. */
    enum Mode {
        LEADER("leader"), LOCK("lock");

        final String label;

        Mode(String label) {
            this.label = label;
        }
    }

    /**
     * The spec of {@code method} of {@code type}, or empty if it carries neither annotation.
     * Refuses, naming the method and the value, whatever would make the guard silently absent or
     * wrong: a method the class proxy cannot intercept, both annotations at once, a bad name or wait.
     */
    static Optional<JobSpec> of(Class<?> type, Method method) {
        LeaderOnly leader = AnnotatedElementUtils.findMergedAnnotation(method, LeaderOnly.class);
        CoordLocked locked = AnnotatedElementUtils.findMergedAnnotation(method, CoordLocked.class);
        if (leader == null && locked == null) {
            return Optional.empty();
        }
        String job = type.getSimpleName() + "." + method.getName();
        String where = " on " + type.getName() + "." + method.getName() + "()";
        if (leader != null && locked != null) {
            // One lease per run: CoordJob.token() would otherwise have two answers.
            throw new ConfigurationException("@LeaderOnly and @CoordLocked" + where
                    + " cannot be combined: a run holds one lease, whose token CoordJob.token() returns; choose one");
        }
        String annotation = leader != null ? "@LeaderOnly" : "@CoordLocked";
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers) || Modifier.isFinal(modifiers) || Modifier.isStatic(modifiers)) {
            // The guard is a class proxy: such a method would be called without it, on every instance.
            throw new ConfigurationException(annotation + where + " needs a method that is not private, final or static"
                    + " (it is guarded through a class proxy, which cannot intercept " + Modifier.toString(modifiers) + " methods)");
        }
        if (Modifier.isFinal(type.getModifiers())) {
            throw new ConfigurationException(annotation + where + " needs a class that is not final"
                    + " (it is guarded through a class proxy, a subclass of " + type.getName() + ")");
        }
        if (method.getReturnType() != void.class) {
            throw new ConfigurationException(annotation + where + " needs a void method: a skipped run has no result, got "
                    + method.getReturnType().getName());
        }
        if (leader != null) {
            return Optional.of(new JobSpec(job, Mode.LEADER, name("@LeaderOnly(election = \"" + leader.election() + "\")" + where,
                    leader.election()), Duration.ZERO));
        }
        String lock = name("@CoordLocked(lock = \"" + locked.lock() + "\")" + where, locked.lock());
        return Optional.of(new JobSpec(job, Mode.LOCK, lock, waitOf("@CoordLocked(waitFor = \"" + locked.waitFor() + "\")" + where, locked.waitFor())));
    }

    private static String name(String what, String value) {
        try {
            return CoordPath.validateName(value);
        } catch (RuntimeException e) {
            throw new ConfigurationException(what + ": not a valid name (one path segment): " + e.getMessage(), e);
        }
    }

    private static Duration waitOf(String what, String value) {
        Duration wait;
        try {
            wait = DurationStyle.detectAndParse(value.strip());
        } catch (RuntimeException e) {
            throw new ConfigurationException(what + ": not a duration (write 0s, 500ms, 5s or PT5S)", e);
        }
        if (wait.isNegative()) {
            throw new ConfigurationException(what + ": the wait must be >= 0");
        }
        return wait;
    }
}
