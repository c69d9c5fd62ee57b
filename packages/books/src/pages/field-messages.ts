import { type AjvIssue, type FieldError, fieldErrors } from '../plugins/app/problem.js';

/** A schema failure in words for people (the rule itself is the contract's; only the wording is the page's). */
function words(issue: AjvIssue): string | undefined {
  const limit = issue.params.limit;
  switch (issue.keyword) {
    case 'required':
      return 'is required';
    case 'pattern':
      return 'needs at least one visible character';
    case 'minLength':
      return limit === 1 ? 'cannot be empty' : `needs at least ${limit} characters`;
    case 'maxLength':
      return `is too long (at most ${limit} characters)`;
    case 'minimum':
      return `must be at least ${limit}`;
    case 'maximum':
      return `must be at most ${limit}`;
    case 'type':
      return issue.params.type === 'integer' ? 'must be a whole number' : undefined;
    case 'enum':
      return 'is not one of the choices';
    default:
      return undefined;
  }
}

/** The invalid fields with messages a person can act on; the schema's own message where no wording fits. */
export function fieldMessages(context: string | undefined, issues: readonly AjvIssue[]): FieldError[] {
  const generic = fieldErrors(context, [...issues]);
  return generic.map((error, index) => {
    const issue = issues[index];
    const message = issue === undefined ? undefined : words(issue);
    return message === undefined ? error : { ...error, message };
  });
}
