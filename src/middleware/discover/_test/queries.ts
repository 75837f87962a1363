/**
 * @module
 * Plain-English queries a model (or a person) would type into `search_tools`, each with the tool
 * of the 500-tool catalog that must rank in the top 3. Written before the ranking of `discover`,
 * and not tuned to it afterwards: a query that fails is a ranking to improve, not a query to reword.
 */
export interface DiscoveryQuery {
  readonly query: string;
  readonly expected: string;
}

export const QUERIES: readonly DiscoveryQuery[] = [
  { query: 'open a pull request', expected: 'github__create_pull_request' },
  { query: "what's on my schedule tomorrow", expected: 'calendar__list_events' },
  { query: 'find the error that crashed production', expected: 'sentry__list_issues' },
  { query: 'send a message to the team channel', expected: 'slack__post_message' },
  { query: "refund a customer's payment", expected: 'stripe__create_refund' },
  { query: 'run a SQL query on the database', expected: 'postgres__execute_query' },
  { query: 'read the contents of a file', expected: 'filesystem__read_file' },
  { query: 'create a bug ticket in Jira', expected: 'jira__create_issue' },
  { query: 'schedule a meeting with Alice next week', expected: 'calendar__create_event' },
  { query: 'upload a document to Google Drive', expected: 'gdrive__upload_file' },
  { query: 'search my notes in Notion', expected: 'notion__search' },
  { query: 'cancel a subscription', expected: 'stripe__cancel_subscription' },
  { query: 'merge the merge request', expected: 'gitlab__merge_merge_request' },
  { query: 'list the tables in the database', expected: 'postgres__list_tables' },
  { query: 'move a Linear issue to done', expected: 'linear__update_issue' },
  { query: 'add a comment to a github issue', expected: 'github__add_issue_comment' },
  { query: 'show the stack trace for an error', expected: 'sentry__get_issue_details' },
  { query: 'invite someone to a slack channel', expected: 'slack__invite_to_channel' },
  { query: 'remove a directory on disk', expected: 'filesystem__delete_directory' },
  { query: 'find free time for a meeting', expected: 'calendar__find_free_slots' },
  { query: 'issue a new invoice to a customer', expected: 'stripe__create_invoice' },
  { query: 'list recent commits on a branch', expected: 'github__list_commits' },
  { query: 'add a contact to the CRM', expected: 'hubspot__create_contact' },
  { query: 'check the CPU metrics of a host', expected: 'datadog__query_metrics' },
  { query: 'mute an alert monitor', expected: 'datadog__mute_monitor' },
  { query: 'reply to a customer support ticket', expected: 'zendesk__reply_to_ticket' },
  { query: 'share a google doc with a coworker', expected: 'gdrive__share_file' },
  { query: 'who reacted to my message', expected: 'slack__get_reactions' },
  { query: 'describe the columns of the users table', expected: 'postgres__describe_table' },
  { query: 'rename a file', expected: 'filesystem__move_file' },
  { query: 'start a sprint', expected: 'jira__start_sprint' },
  { query: 'create a new page in the wiki', expected: 'notion__create_page' },
  { query: 'resolve the sentry issue', expected: 'sentry__resolve_issue' },
  { query: 'look up a customer by email', expected: 'stripe__search_customers' },
  { query: 'retry a failed CI pipeline', expected: 'gitlab__retry_pipeline' },
  { query: 'why is this query slow', expected: 'postgres__explain_query' },
  { query: 'log the hours I spent on a ticket', expected: 'jira__add_worklog' },
  { query: 'set my status to out sick', expected: 'slack__set_user_status' },
  { query: 'grep the code for a function name', expected: 'filesystem__grep' },
  { query: 'declare an incident', expected: 'datadog__create_incident' },
];
