//! Metric definitions as the service keeps them: found by id or slug, created, changed as new
//! immutable versions, and thresholds made on them (their workspace variants are `variants`).
//! The rules, not the HTTP: the routes hand their validated input here.

use crate::service::store::{Conn, Tx};
use uuid::Uuid;

use crate::api::model::*;
use crate::service::error::{DomainError, DomainResult};
use crate::service::store::StoreResult;
use crate::service::store::{self, Doc, Kind};

/// A definition by uuid or by slug (or its alias).
pub fn resolve(conn: &Conn, id_or_slug: &str) -> DomainResult<MetricDefinition> {
    find(conn, id_or_slug)?.ok_or_else(|| DomainError::not_found("metric definition", id_or_slug))
}

/// A definition by uuid or by slug (or its alias), None when there is none: a store that
/// fails is an error, never a missing definition.
pub fn find(conn: &Conn, id_or_slug: &str) -> StoreResult<Option<MetricDefinition>> {
    match Uuid::parse_str(id_or_slug) {
        Ok(id) => store::get(conn, Kind::MetricDefinition, &id.to_string()),
        Err(_) => store::find_by(conn, Kind::MetricDefinition, "$.slug", id_or_slug),
    }
}

/// Writes a definition and records it as a version.
pub fn save(tx: &Tx, definition: &MetricDefinition, insert: bool) -> DomainResult<()> {
    let doc = Doc::of(definition)?;
    if insert {
        store::insert(tx, &doc)?
    } else {
        store::update(tx, &doc)?
    }
    store::versions::put(tx, &definition.id.to_string(), definition.version.unwrap_or(1) as i64, &doc.body)?;
    Ok(())
}

/// Every version of a definition, newest first, as each was stored.
pub fn versions(c: &Conn, id_or_slug: &str) -> DomainResult<Vec<serde_json::Value>> {
    let definition = resolve(c, id_or_slug)?;
    let bodies = store::versions::all_raw(c, &definition.id.to_string())?;
    bodies.iter().map(|b| Ok(serde_json::from_str::<serde_json::Value>(b)?)).collect()
}

/// 409 `slug_taken`: slugs name metrics across the workspace, so a second one is a collision
/// with what is stored, not a malformed request.
fn slug_taken(param: &str, slug: &str) -> DomainError {
    DomainError::conflict(param, SLUG_TAKEN, format!("a metric with slug {slug} exists already: choose another slug"))
}

/// The error code of a metric slug that another metric holds.
pub const SLUG_TAKEN: &str = "slug_taken";

/// Creates a caller-owned custom metric at version 1.
pub fn create(tx: &Tx, input: MetricDefinitionInput) -> DomainResult<MetricDefinition> {
    let name = input.name.clone().unwrap_or_default();
    let slug = input.slug.clone().unwrap_or_else(|| slug_from_name(&name));
    if store::find_by::<MetricDefinition>(tx, Kind::MetricDefinition, "$.slug", &slug)?.is_some() {
        return Err(slug_taken("slug", &slug));
    }
    for (i, kb) in input.knowledge_base_ids.iter().flatten().enumerate() {
        if !store::exists(tx, Kind::KnowledgeBase, &kb.to_string())? {
            return Err(DomainError::invalid(format!("knowledgeBaseIds[{i}]"), format!("no knowledge base {kb}")));
        }
    }
    let at = Timestamp::now();
    let metric_type = input.value_type().cloned();
    let formula = input
        .formula
        .map(|expression| Formula::Object { expression, sources: input.sources.clone().unwrap_or_default() });
    let definition = MetricDefinition {
        id: Uuid::new_v4(),
        slug: Some(slug.clone()),
        metric_id: Some(slug),
        variant_id: Some(Uuid::new_v4()),
        version_id: Some(Uuid::new_v4()),
        name: Some(name),
        // The hosted SDK types `description` as a required string, so an omitted one is "".
        description: Some(input.description.unwrap_or_default()),
        metric_type: metric_type.clone(),
        scope: Some(input.scope.unwrap_or(MetricScope::Global)),
        supported_contexts: input.supported_contexts.unwrap_or_else(|| vec![MetricContext::Call]),
        supported_conversation_sources: vec![ConversationSource::Simulated, ConversationSource::Live],
        requires_live_conversation: Some(false),
        supports_variants: Some(false),
        calculation_type: input.calculation_type,
        llm_prompt: input.llm_prompt,
        boolean_true_label: input.boolean_true_label,
        boolean_false_label: input.boolean_false_label,
        unit: input.unit,
        source: Some(DefinitionSource::Custom),
        output_type: metric_type,
        version: Some(1),
        supported_modalities: input.supported_modalities.or_else(|| Some(vec![Modality::Call, Modality::Chat])),
        scale_min: input.scale_min,
        scale_max: input.scale_max,
        scale_labels: input.scale_labels,
        classification_options: input.classification_options,
        max_classifications: input.max_classifications,
        formula,
        sources: input.sources,
        knowledge_base_ids: input.knowledge_base_ids,
        created_at: Some(at.clone()),
        updated_at: Some(at),
        ..Default::default()
    };
    save(tx, &definition, true)?;
    Ok(definition)
}

/// Applies the supplied fields of an update, as a new immutable version.
pub(super) fn apply_update(definition: &mut MetricDefinition, update: MetricDefinitionUpdate) {
    let d = definition;
    macro_rules! set {
        ($($field:ident),+) => {$( if let Some(v) = update.$field { d.$field = Some(v); } )+};
    }
    set!(name, llm_prompt, scale_min, scale_max, scale_labels, boolean_true_label, boolean_false_label);
    set!(classification_options, max_classifications, sources, change_reason);
    if let Some(expression) = update.formula {
        let sources = d.sources.clone().unwrap_or_default();
        d.formula = Some(Formula::Object { expression, sources });
    } else if let (Some(Formula::Object { expression, .. }), Some(sources)) = (&d.formula, &d.sources) {
        d.formula = Some(Formula::Object { expression: expression.clone(), sources: sources.clone() });
    }
    if let Some(contexts) = update.supported_contexts {
        d.supported_contexts = contexts;
    }
    d.version = Some(d.version.unwrap_or(1) + 1);
    d.version_id = Some(Uuid::new_v4());
    d.updated_at = Some(Timestamp::now());
}

/// Changes a caller-owned definition as a new immutable version; service-owned ones are refused.
pub fn update(tx: &Tx, id_or_slug: &str, update: MetricDefinitionUpdate) -> DomainResult<MetricDefinition> {
    let mut definition = resolve(tx, id_or_slug)?;
    if definition.is_service_owned() {
        return Err(DomainError::invalid(
            "idOrSlug",
            "service-owned metrics cannot be edited here; edit a variant through \
             PUT /v1/metric/definitions/{idOrSlug}/variants/{variant}, which forks it for this workspace",
        ));
    }
    DomainError::check(update.validate_against(&definition))?;
    apply_update(&mut definition, update);
    save(tx, &definition, false)?;
    Ok(definition)
}

/// Makes a THRESHOLD metric on `source_id_or_slug`: a boolean metric that fires when the source
/// meets the comparison.
pub fn create_threshold(tx: &Tx, source_id_or_slug: &str, input: ThresholdInput) -> DomainResult<MetricDefinition> {
    let source = resolve(tx, source_id_or_slug)?;
    DomainError::check(input.validate_against(&source))?;
    let name = input.name.clone().unwrap_or_else(|| {
        format!("{} {}", source.name.as_deref().unwrap_or("metric"), input.value.as_deref().unwrap_or_default())
    });
    let taken = |slug: &str| -> DomainResult<bool> {
        Ok(store::find_by::<MetricDefinition>(tx, Kind::MetricDefinition, "$.slug", slug)?.is_some())
    };
    let slug = match (input.slug.clone().or(input.metric_id.clone()), &input.name) {
        (Some(slug), _) => slug,
        (None, Some(name)) => slug_from_name(name),
        (None, None) => {
            let operator = input.operator.as_ref().map(ThresholdOperator::short).unwrap_or_default();
            let base = format!(
                "{} {operator} {}",
                source.slug_or_alias().unwrap_or("metric"),
                input.value.as_deref().unwrap_or_default()
            );
            unused_slug(&base, &taken)?
        }
    };
    if taken(&slug)? {
        let param = if input.slug.is_some() || input.metric_id.is_some() { "slug" } else { "name" };
        return Err(slug_taken(param, &slug));
    }
    if let Some(variant) = input.source_variant_id
        && Some(variant) != source.variant_id
        && !store::exists(tx, Kind::MetricDefinition, &variant.to_string())?
    {
        return Err(DomainError::invalid("sourceVariantId", format!("no variant {variant} of this metric")));
    }
    let at = Timestamp::now();
    let definition = MetricDefinition {
        id: Uuid::new_v4(),
        slug: Some(slug.clone()),
        metric_id: Some(slug),
        variant_id: Some(Uuid::new_v4()),
        version_id: Some(Uuid::new_v4()),
        name: Some(name),
        description: input.description.clone(),
        metric_type: Some(MetricType::Boolean),
        scope: source.scope.clone(),
        supported_contexts: source.supported_contexts.clone(),
        supported_conversation_sources: source.supported_conversation_sources.clone(),
        requires_live_conversation: source.requires_live_conversation,
        supports_variants: Some(false),
        calculation_type: Some(CalculationType::Threshold),
        boolean_true_label: Some("Met".into()),
        boolean_false_label: Some("Not met".into()),
        threshold: Some(Threshold {
            source_metric_definition_id: Some(source.id),
            operator: input.operator.clone(),
            threshold_value: input.value.clone(),
            aggregation_mode: Some(input.aggregation_mode_or_default()),
            count_threshold: input.count_threshold,
            source_participant_role: input.source_participant_role.clone(),
            source_variant_id: input.source_variant_id,
        }),
        source: Some(DefinitionSource::Custom),
        output_type: Some(MetricType::Boolean),
        version: Some(1),
        supported_modalities: source.supported_modalities.clone(),
        sources: Some(vec![MetricSourceRef {
            source_metric_definition_id: Some(source.id),
            source_variant_id: input.source_variant_id,
        }]),
        created_at: Some(at.clone()),
        updated_at: Some(at),
        ..Default::default()
    };
    save(tx, &definition, true)?;
    Ok(definition)
}

/// A slug made from `base` that no metric has yet: `base`, else `base_2`, `base_3`, …
fn unused_slug(base: &str, taken: &dyn Fn(&str) -> DomainResult<bool>) -> DomainResult<String> {
    let slug = slug_from_name(base);
    if !taken(&slug)? {
        return Ok(slug);
    }
    for n in 2..1_000 {
        let suffix = format!("_{n}");
        let mut stem = slug.clone();
        stem.truncate(threshold_limits::SLUG_MAX - suffix.len());
        let candidate = format!("{}{suffix}", stem.trim_end_matches('_'));
        if !taken(&candidate)? {
            return Ok(candidate);
        }
    }
    Err(DomainError::invalid("slug", format!("every slug made from {slug} is taken; give a slug")))
}
