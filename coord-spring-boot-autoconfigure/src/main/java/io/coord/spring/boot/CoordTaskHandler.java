package io.coord.spring.boot;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a bean method the handler of a Coord task queue (needs {@code coord-queue}): the
 * application runs a {@code TaskWorker} on {@code /queues/{queue}} with {@code concurrency}
 * consumer threads, started once the context has refreshed and stopped (draining: no new claims,
 * in-flight handlers get {@code coord.tasks.shutdown-grace}, then are interrupted and their tasks
 * released) when it closes, before the {@code CoordClient}.
 *
 * <pre>{@code
 * @CoordTaskHandler(queue = "thumbnails", concurrency = 2)
 * void render(Thumbnail job) { ... }                    // returns: completed; throws: failed
 *
 * @CoordTaskHandler(queue = "exports", type = Export.class)
 * void export(TaskClaim<Export> claim) { ... }          // the claim itself: token, extend, release
 * }</pre>
 *
 * The method takes one parameter: the payload (decoded strictly as that type, or as {@link #type()})
 * or the {@code TaskClaim}. It must be non-private and non-static; what it returns is ignored. A
 * bad method, queue name or concurrency fails startup naming the method.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface CoordTaskHandler {
    /** The queue's name, one path segment: {@code /queues/{queue}}. */
    String queue();

    /** Consumer threads, at least 1. */
    int concurrency() default 1;

    /** The payload type; needed only when the parameter is a {@code TaskClaim} without a type argument. */
    Class<?> type() default Void.class;
}
