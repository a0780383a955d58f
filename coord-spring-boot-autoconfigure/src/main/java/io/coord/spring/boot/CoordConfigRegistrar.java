package io.coord.spring.boot;

import io.coord.ConfigurationException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.type.AnnotationMetadata;

/**
 * One {@link CoordConfigValue} bean definition per type listed in {@link EnableCoordConfig}, typed
 * {@code CoordConfigValue<Type>} so that injection by generic type finds it. The value itself is
 * opened by {@link CoordConfigs} when the bean is made.
 */
final class CoordConfigRegistrar implements ImportBeanDefinitionRegistrar, BeanFactoryAware {
    private BeanFactory beanFactory;

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        MergedAnnotation<EnableCoordConfig> enable = metadata.getAnnotations().get(EnableCoordConfig.class);
        for (Class<?> type : enable.getClassArray("value")) {
            register(type, registry);
        }
    }

    private <T> void register(Class<T> type, BeanDefinitionRegistry registry) {
        CoordConfig annotation = type.getAnnotation(CoordConfig.class);
        if (annotation == null) {
            throw new ConfigurationException("@EnableCoordConfig lists " + type.getName()
                    + ", which has no @CoordConfig(\"app/key\") saying which config key it binds");
        }
        String name = type.getName() + "-coordConfig";
        if (registry.containsBeanDefinition(name)) {
            return; // listed by two @EnableCoordConfig: one bean
        }
        ConfigKeyName key = ConfigKeyName.parse(type, annotation.value());
        RootBeanDefinition definition = new RootBeanDefinition(CoordConfigValue.class);
        definition.setTargetType(ResolvableType.forClassWithGenerics(CoordConfigValue.class, type));
        definition.setRole(BeanDefinition.ROLE_APPLICATION);
        BeanFactory factory = beanFactory;
        definition.setInstanceSupplier(() -> factory.getBean(CoordConfigs.class).open(type, key));
        // Closed before CoordConfigs (and so before the client, which CoordConfigs depends on).
        definition.setDependsOn(CoordConfigAutoConfiguration.CONFIGS_BEAN);
        definition.setDestroyMethodNames("close");
        registry.registerBeanDefinition(name, definition);
    }

    /** {@code app/key} split and checked when the annotation is read, naming the type. */
    record ConfigKeyName(String app, String key) {
        static ConfigKeyName parse(Class<?> type, String value) {
            String[] parts = value.split("/", -1);
            if (parts.length != 2 || parts[0].isEmpty() || parts[1].isEmpty()) {
                throw new ConfigurationException("@CoordConfig(\"" + value + "\") on " + type.getName()
                        + " must be \"app/key\" (two non-empty segments, for /config/{app}/{key})");
            }
            return new ConfigKeyName(parts[0], parts[1]);
        }
    }
}
