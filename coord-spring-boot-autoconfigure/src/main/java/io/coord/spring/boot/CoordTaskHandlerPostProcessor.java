package io.coord.spring.boot;

import io.coord.ConfigurationException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Finds the {@link CoordTaskHandler @CoordTaskHandler} methods of every bean and checks them;
 * {@link CoordTaskWorkers} starts their workers once the context has refreshed. Present whether or
 * not the application has {@code coord-queue}, so that a handler whose module is missing fails
 * startup instead of silently never running.
 */
final class CoordTaskHandlerPostProcessor implements BeanPostProcessor {
    private final List<TaskHandlerSpec> found = new CopyOnWriteArrayList<>();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        if (!AnnotationUtils.isCandidateClass(type, CoordTaskHandler.class)) {
            return bean;
        }
        ReflectionUtils.doWithMethods(type, m -> {
            CoordTaskHandler annotation = AnnotatedElementUtils.findMergedAnnotation(m, CoordTaskHandler.class);
            if (annotation == null) {
                return;
            }
            if (!ClassUtils.isPresent("io.coord.queue.TaskQueue", type.getClassLoader())) {
                throw new ConfigurationException("@CoordTaskHandler on " + type.getName() + "." + m.getName()
                        + " needs coord-queue on the classpath (io.coord:coord-queue)");
            }
            TaskHandlerSpec spec = TaskHandlerSpec.of(bean, AopUtils.selectInvocableMethod(m, bean.getClass()), annotation);
            ReflectionUtils.makeAccessible(spec.method());
            found.add(spec);
        }, ReflectionUtils.USER_DECLARED_METHODS);
        return bean;
    }

    List<TaskHandlerSpec> handlers() {
        return List.copyOf(found);
    }
}
