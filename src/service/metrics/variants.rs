//! A metric's variants: its Default (the definition itself) and the workspace's forks of it,
//! each a definition of its own (`forkedFrom`, `variantName`), made from the Default, renamed,
//! edited as new versions, and deleted. Threshold metrics have none: their configuration is
//! their source's.

use uuid::Uuid;

use super::definitions::{apply_update, resolve, save};
use crate::api::model::*;
use crate::service::error::{DomainError, DomainResult};
use crate::service::store::StoreResult;
use crate::service::store::{self, Conn, Filter, Kind, Tx};

/// The name the default variant has.
const DEFAULT_VARIANT: &str = "Default";

/// Forks one metric may have.
pub const VARIANTS_MAX: u64 = 100;

/// The id of a workspace fork of `definition` first made under the name `variant`.
fn variant_id(definition: Uuid, variant: &str) -> Uuid {
    Uuid::new_v5(&definition, variant.as_bytes())
}

/// Whether the path segment names the definition's default variant.
fn is_default(definition: &MetricDefinition, variant: &str) -> bool {
    variant.eq_ignore_ascii_case("default") || Some(variant) == definition.variant_id.map(|v| v.to_string()).as_deref()
}

/// Every fork of `definition`, oldest first.
fn forks(c: &Conn, definition: &MetricDefinition) -> DomainResult<Vec<MetricDefinition>> {
    let filter =
        Filter { fields: vec![("$.forkedFrom", definition.id.to_string())], oldest_first: true, ..Default::default() };
    let page = store::list(c, Kind::MetricDefinition, &filter, None, VARIANTS_MAX)?;
    page.bodies.iter().map(|body| Ok(serde_json::from_str(body)?)).collect()
}

/// The fork of `definition` a path segment names: by its id, or by its name.
fn fork_named(c: &Conn, definition: &MetricDefinition, variant: &str) -> DomainResult<Option<MetricDefinition>> {
    if let Ok(id) = Uuid::parse_str(variant)
        && let Some(fork) = store::get::<MetricDefinition>(c, Kind::MetricDefinition, &id.to_string())?
        && fork.forked_from == Some(definition.id)
    {
        return Ok(Some(fork));
    }
    Ok(forks(c, definition)?.into_iter().find(|fork| fork.variant_name.as_deref() == Some(variant)))
}

/// A definition's default variant, or a fork of it, as a variant object.
fn variant_of(base: &MetricDefinition, fork: Option<MetricDefinition>) -> MetricVariant {
    match fork {
        None => MetricVariant {
            id: base.variant_id.unwrap_or(base.id),
            name: DEFAULT_VARIANT.into(),
            is_default: true,
            is_system: base.is_service_owned(),
            metric_definition_id: base.id,
            version_id: base.version_id,
            created_at: base.created_at.clone(),
            updated_at: base.updated_at.clone(),
            definition: Some(Box::new(base.clone())),
        },
        Some(fork) => MetricVariant {
            id: fork.id,
            name: fork.variant_name.clone().unwrap_or_default(),
            is_default: false,
            is_system: false,
            metric_definition_id: base.id,
            version_id: fork.version_id,
            created_at: fork.created_at.clone(),
            updated_at: fork.updated_at.clone(),
            definition: Some(Box::new(fork)),
        },
    }
}

/// A variant of a definition: its default one, or a workspace fork by id or name.
pub fn variant(c: &Conn, id_or_slug: &str, variant: &str) -> DomainResult<MetricVariant> {
    let definition = resolve(c, id_or_slug)?;
    if is_default(&definition, variant) {
        return Ok(variant_of(&definition, None));
    }
    let fork = fork_named(c, &definition, variant)?.ok_or_else(|| DomainError::not_found("metric variant", variant))?;
    Ok(variant_of(&definition, Some(fork)))
}

/// Every variant of a definition: the Default first, then the forks, oldest first.
pub fn list(c: &Conn, id_or_slug: &str) -> DomainResult<Vec<MetricVariant>> {
    let definition = resolve(c, id_or_slug)?;
    let forks = forks(c, &definition)?;
    Ok(std::iter::once(variant_of(&definition, None))
        .chain(forks.into_iter().map(|fork| variant_of(&definition, Some(fork))))
        .collect())
}

/// Why `name` cannot name a new (or renamed) variant of `definition`, if it cannot.
fn name_problem(c: &Conn, definition: &MetricDefinition, name: &str) -> DomainResult<Option<String>> {
    if let Some(problem) = variant_name_problem(name) {
        return Ok(Some(problem));
    }
    if name.eq_ignore_ascii_case(DEFAULT_VARIANT) {
        return Ok(Some(format!("{DEFAULT_VARIANT} is the name of the metric's own variant")));
    }
    if fork_named(c, definition, name)?.is_some() {
        return Ok(Some(format!("this metric has a variant named {} already", crate::api::validate::quote(name))));
    }
    Ok(None)
}

/// Threshold metrics have no variants.
fn refuse_threshold(definition: &MetricDefinition, param: &str) -> DomainResult<()> {
    if definition.calculation_type == Some(CalculationType::Threshold) {
        let message = "threshold metrics have no variants: their configuration is their source metric's";
        return Err(DomainError::invalid(param, message));
    }
    Ok(())
}

/// A new fork of `original` named `name`, as its Default configures it (version 0; saving an
/// update makes it 1).
fn new_fork(original: &MetricDefinition, name: &str) -> MetricDefinition {
    let mut fork = original.clone();
    let fork_id = variant_id(original.id, name);
    let slug = format!("{}__{}", original.slug.clone().unwrap_or_default(), slug_from_name(name));
    fork.id = fork_id;
    fork.variant_id = Some(fork_id);
    fork.variant_name = Some(name.to_owned());
    fork.forked_from = Some(original.id);
    fork.slug = Some(slug.clone());
    fork.metric_id = Some(slug);
    fork.source = Some(DefinitionSource::Custom);
    fork.version = Some(0);
    let at = Timestamp::now();
    fork.created_at = Some(at.clone());
    fork.updated_at = Some(at);
    fork
}

/// Makes a variant of a definition named `name`, seeded from its Default.
pub fn create(tx: &Tx, id_or_slug: &str, name: &str) -> DomainResult<MetricVariant> {
    let original = resolve(tx, id_or_slug)?;
    refuse_threshold(&original, "idOrSlug")?;
    if let Some(problem) = name_problem(tx, &original, name)? {
        return Err(DomainError::invalid("name", problem));
    }
    if forks(tx, &original)?.len() as u64 >= VARIANTS_MAX {
        return Err(DomainError::invalid("name", format!("a metric has at most {VARIANTS_MAX} variants")));
    }
    let mut fork = new_fork(&original, name);
    apply_update(&mut fork, MetricDefinitionUpdate::default());
    save(tx, &fork, true)?;
    Ok(variant_of(&original, Some(fork)))
}

/// Edits a variant as a new version (`name` renames it, leaving the version). A name no variant
/// has forks the definition under it (local service extension). The Default of a caller-owned
/// metric is the definition itself, edited as `PUT /v1/metric/definitions/{id}` would; a
/// service-owned metric's Default is not edited.
pub fn update(
    tx: &Tx,
    id_or_slug: &str,
    variant: &str,
    mut update: MetricDefinitionUpdate,
) -> DomainResult<MetricVariant> {
    let original = resolve(tx, id_or_slug)?;
    if is_default(&original, variant) {
        if original.is_service_owned() {
            let message = "the service's Default variant is not edited: make a variant of it \
                           (POST …/variants) and edit that, or PUT …/variants/{a new name} to fork it";
            return Err(DomainError::invalid("variantId", message));
        }
        if update.name.is_some() {
            return Err(DomainError::invalid("name", format!("the {DEFAULT_VARIANT} variant keeps its name")));
        }
        let edited = super::definitions::update(tx, id_or_slug, update)?;
        return Ok(variant_of(&edited, None));
    }
    refuse_threshold(&original, "idOrSlug")?;
    let existing = fork_named(tx, &original, variant)?;
    let rename = update.name.take();
    let insert = existing.is_none();
    let mut fork = match existing {
        Some(fork) => fork,
        None => {
            if let Some(problem) = name_problem(tx, &original, variant)? {
                return Err(DomainError::invalid("variant", problem));
            }
            new_fork(&original, variant)
        }
    };
    if let Some(name) = rename.filter(|name| fork.variant_name.as_deref() != Some(name.as_str())) {
        if let Some(problem) = name_problem(tx, &original, &name)? {
            return Err(DomainError::invalid("name", problem));
        }
        fork.variant_name = Some(name);
    }
    DomainError::check(update.validate_against(&fork))?;
    // A rename alone leaves the configuration, and so the version, as it is.
    if update.supplied_fields().is_empty() && !insert {
        fork.updated_at = Some(Timestamp::now());
        save_rename(tx, &fork)?;
    } else {
        apply_update(&mut fork, update);
        save(tx, &fork, insert)?;
    }
    Ok(variant_of(&original, Some(fork)))
}

/// Deletes a fork (kept, hidden from every read; values it scored stay). The Default is refused.
pub fn delete(tx: &Tx, id_or_slug: &str, variant: &str) -> DomainResult<Uuid> {
    let original = resolve(tx, id_or_slug)?;
    if is_default(&original, variant) {
        let message = format!("the {DEFAULT_VARIANT} variant cannot be deleted; delete a variant of your own");
        return Err(DomainError::invalid("variantId", message));
    }
    let fork = fork_named(tx, &original, variant)?.ok_or_else(|| DomainError::not_found("metric variant", variant))?;
    store::soft_delete(tx, Kind::MetricDefinition, &fork.id.to_string(), &Timestamp::now().0)?;
    Ok(fork.id)
}

/// Writes a fork's body without a new version (a rename).
fn save_rename(tx: &Tx, fork: &MetricDefinition) -> StoreResult<()> {
    store::update(tx, &store::Doc::of(fork)?)
}
