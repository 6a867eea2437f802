// Which step of a multi-step form comes next and where Back returns; the launch and code review forms walk with it. Pure.
/**
 * The walk through a form's steps. `S` names every step: the main ones (`plan`, ending with
 * `review`) and the option steps reached from the review (`isOption`).
 */
export class Navigator<S extends string> {
  private currentStep: S;
  private readonly history: S[] = [];
  /** Steps opened from the review: accepting them goes back to the review. */
  private readonly fromReview = new Set<S>();
  private readonly review = 'review' as S;

  /**
   * @param plan read on every move, so a preset picked along the way changes what follows.
   * @param start where to open ("Edit" opens mid-form); the steps before it become Back history.
   */
  constructor(
    private readonly plan: () => NoInfer<S>[],
    start: NoInfer<S> | undefined,
    private readonly isOption: (step: S) => boolean,
  ) {
    const steps = plan();
    const first = steps[0] ?? this.review;
    this.currentStep = start ?? first;
    if (start !== undefined) {
      const target: S = this.isOption(start) ? this.review : start;
      const index = steps.indexOf(target);
      if (index > 0) this.history.push(...steps.slice(0, index));
      if (this.isOption(start)) {
        if (index >= 0) this.history.push(this.review);
        this.fromReview.add(start);
      }
    }
  }

  get current(): S {
    return this.currentStep;
  }

  get canGoBack(): boolean {
    return this.history.length > 0;
  }

  /** Moves past the current step. Returns undefined after the review (time to start the run). */
  next(): S | undefined {
    const from = this.currentStep;
    let to: S | undefined;
    if (this.fromReview.has(from)) {
      this.fromReview.delete(from);
      // Back from the review must not walk into the step that was just edited again.
      to = this.review;
      while (this.history.length > 0 && this.history[this.history.length - 1] !== this.review) this.history.pop();
      this.history.pop();
      this.currentStep = to;
      return to;
    }
    if (this.isOption(from)) {
      to = this.review;
    } else {
      const steps = this.plan();
      const index = steps.indexOf(from);
      to = index >= 0 ? steps[index + 1] : this.review;
      if (from === this.review) to = undefined;
    }
    if (to === undefined) return undefined;
    this.history.push(from);
    this.currentStep = to;
    return to;
  }

  /** From the review: open one field's step; accepting it comes back to the review. */
  open(step: S): S {
    if (step === this.currentStep) return step;
    this.history.push(this.currentStep);
    if (this.currentStep === this.review) this.fromReview.add(step);
    this.currentStep = step;
    return step;
  }

  back(): S | undefined {
    const previous = this.history.pop();
    if (previous === undefined) return undefined;
    this.fromReview.delete(this.currentStep);
    this.currentStep = previous;
    return previous;
  }

  /** "Step n of total" for the title; an option step counts as the review step. */
  position(): { step: number; total: number } {
    const steps = this.plan();
    const at: S = this.isOption(this.currentStep) ? this.review : this.currentStep;
    const index = steps.indexOf(at);
    return { step: index >= 0 ? index + 1 : steps.length, total: steps.length };
  }
}
