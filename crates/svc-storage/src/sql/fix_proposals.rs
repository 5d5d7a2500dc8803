//! AI Fix's proposed repairs of scraps with a site login. A proposal is
//! written with the task that found it (`finish_task`) and decided by a
//! person: approving it swaps the scrap's script (only while it is still
//! the script the proposal repairs) and appends an approved `ai_fix`
//! version, in one transaction.

use async_trait::async_trait;
use const_format::concatcp;
use sqlx::{ColumnIndex, Decode, Encode, Executor, Type};
use svc_domain::script_version::{FixProposal, ProposalState, ScriptVersion, VersionSource};
use svc_domain::{ObjectId, OrgId, ScrapId};

use super::{Dialect, RowsAffected, SqlStore, WriteTx, columns};
use crate::Result;
use crate::records::{millis, opt_millis};
use crate::task_records::ProposalRow;
use crate::traits::{Decided, FixProposalStore, ProposalDecision};

impl<DB: Dialect> SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + ColumnIndex<DB::Row>,
    for<'q> Option<&'q str>: Encode<'q, DB>,
    for<'q> String: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<String>: Encode<'q, DB>,
    for<'q> i64: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<i64>: Encode<'q, DB>,
    for<'q> bool: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    str: Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    /// Stores `p` as pending for `org` (whatever it says), superseding the
    /// scrap's older pending proposals.
    pub(super) async fn insert_proposal(tx: &mut WriteTx<DB>, org: OrgId, p: &FixProposal) -> Result<()> {
        sqlx::query(
            "UPDATE fix_proposals SET state = 'superseded', decided_at = $3 \
             WHERE organization_id = $1 AND scrap_id = $2 AND state = 'pending'",
        )
        .bind(org.to_string())
        .bind(p.scrap_id.to_string())
        .bind(millis(p.created_at))
        .execute(&mut **tx)
        .await?;
        sqlx::query(concatcp!(
            "INSERT INTO fix_proposals (",
            columns::FIX_PROPOSAL,
            ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', $9, NULL, NULL, NULL)"
        ))
        .bind(p.id.to_string())
        .bind(org.to_string())
        .bind(p.scrap_id.to_string())
        .bind(p.task_id.to_string())
        .bind(p.history_id.to_string())
        .bind(&p.base_request)
        .bind(&p.request)
        .bind(p.length)
        .bind(millis(p.created_at))
        .execute(&mut **tx)
        .await?;
        Ok(())
    }

    async fn proposal_in(
        tx: &mut WriteTx<DB>,
        org: OrgId,
        scrap: ScrapId,
        id: ObjectId,
    ) -> Result<Option<FixProposal>> {
        let row: Option<ProposalRow> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::FIX_PROPOSAL,
            " FROM fix_proposals WHERE organization_id = $1 AND scrap_id = $2 AND id = $3"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(id.to_string())
        .fetch_optional(&mut **tx)
        .await?;
        row.map(FixProposal::try_from).transpose()
    }

    async fn mark_decided(
        tx: &mut WriteTx<DB>,
        p: &FixProposal,
        state: ProposalState,
        decided: &Decided<'_>,
        version: Option<ObjectId>,
    ) -> Result<()> {
        sqlx::query(
            "UPDATE fix_proposals SET state = $3, decided_at = $4, decided_by = $5, version_id = $6 \
             WHERE organization_id = $1 AND id = $2",
        )
        .bind(p.organization_id.to_string())
        .bind(p.id.to_string())
        .bind(state.as_str())
        .bind(opt_millis(Some(decided.at)))
        .bind(decided.by.to_string())
        .bind(version.map(|v| v.to_string()))
        .execute(&mut **tx)
        .await?;
        Self::insert_activity(tx, decided.activity).await
    }
}

#[async_trait]
impl<DB: Dialect> FixProposalStore for SqlStore<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> &'q str: Encode<'q, DB> + ColumnIndex<DB::Row>,
    for<'q> Option<&'q str>: Encode<'q, DB>,
    for<'q> String: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<String>: Encode<'q, DB>,
    for<'q> i64: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    for<'q> Option<i64>: Encode<'q, DB>,
    for<'q> bool: Encode<'q, DB> + Decode<'q, DB> + Type<DB>,
    str: Type<DB>,
    usize: ColumnIndex<DB::Row>,
{
    async fn fix_proposals(
        &self,
        org: OrgId,
        scrap: ScrapId,
        only_pending: bool,
        limit: i64,
    ) -> Result<Vec<FixProposal>> {
        let rows: Vec<ProposalRow> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::FIX_PROPOSAL,
            " FROM fix_proposals WHERE organization_id = $1 AND scrap_id = $2 AND ($3 = FALSE OR state = 'pending') \
             ORDER BY created_at DESC, id DESC LIMIT $4"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(only_pending)
        .bind(limit)
        .fetch_all(&mut *self.reader().await?)
        .await?;
        rows.into_iter().map(FixProposal::try_from).collect()
    }

    async fn fix_proposal(&self, org: OrgId, scrap: ScrapId, id: ObjectId) -> Result<Option<FixProposal>> {
        let row: Option<ProposalRow> = sqlx::query_as(concatcp!(
            "SELECT ",
            columns::FIX_PROPOSAL,
            " FROM fix_proposals WHERE organization_id = $1 AND scrap_id = $2 AND id = $3"
        ))
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(id.to_string())
        .fetch_optional(&mut *self.writer().await?)
        .await?;
        row.map(FixProposal::try_from).transpose()
    }

    async fn approve_proposal(
        &self,
        org: OrgId,
        scrap: ScrapId,
        id: ObjectId,
        decided: &Decided<'_>,
    ) -> Result<Option<ProposalDecision>> {
        let mut tx = self.begin_write().await?;
        let Some(p) = Self::proposal_in(&mut tx, org, scrap, id).await? else { return Ok(None) };
        if p.state != ProposalState::Pending {
            return Ok(Some(ProposalDecision::AlreadyDecided(p.state)));
        }
        let swapped = sqlx::query(
            "UPDATE scraps SET request = $4, updated_at = $5 WHERE organization_id = $1 AND id = $2 AND request = $3",
        )
        .bind(org.to_string())
        .bind(scrap.to_string())
        .bind(&p.base_request)
        .bind(&p.request)
        .bind(millis(decided.at))
        .execute(&mut *tx)
        .await?;
        if swapped.rows_affected() != 1 {
            return Ok(Some(ProposalDecision::ScriptChanged));
        }
        let version = ScriptVersion {
            id: ObjectId::new(),
            organization_id: org,
            scrap_id: scrap,
            number: 0,
            request: p.request.clone(),
            source: VersionSource::AiFix,
            history_id: Some(p.history_id),
            restored_from: None,
            created_at: decided.at,
            approved_at: Some(decided.at),
            approved_by: Some(decided.by),
        };
        let stored = Self::append_version(&mut tx, &version).await?;
        Self::mark_decided(&mut tx, &p, ProposalState::Approved, decided, Some(stored.id)).await?;
        tx.commit().await?;
        Ok(Some(ProposalDecision::Done { version: Some(stored) }))
    }

    async fn dismiss_proposal(
        &self,
        org: OrgId,
        scrap: ScrapId,
        id: ObjectId,
        decided: &Decided<'_>,
    ) -> Result<Option<ProposalDecision>> {
        let mut tx = self.begin_write().await?;
        let Some(p) = Self::proposal_in(&mut tx, org, scrap, id).await? else { return Ok(None) };
        if p.state != ProposalState::Pending {
            return Ok(Some(ProposalDecision::AlreadyDecided(p.state)));
        }
        Self::mark_decided(&mut tx, &p, ProposalState::Dismissed, decided, None).await?;
        tx.commit().await?;
        Ok(Some(ProposalDecision::Done { version: None }))
    }
}
