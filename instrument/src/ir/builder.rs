//! A small helper for appending statements and expressions to a naga function while keeping
//! naga's emit discipline: every expression that is not "pre-emitted" (literals, arguments,
//! variables) must be covered by exactly one `Emit` before a statement uses it.

use naga::{Block, Expression, Function, Handle, Range, Span, Statement};

pub(crate) struct BlockBuilder<'f> {
    function: &'f mut Function,
    block: Block,
    pending: Option<(Handle<Expression>, Handle<Expression>)>,
    span: Span,
}

impl<'f> BlockBuilder<'f> {
    /// Statements and expressions get `span`, so diagnostics point at the instrumented construct.
    pub(crate) fn new(function: &'f mut Function, span: Span) -> Self {
        BlockBuilder {
            function,
            block: Block::new(),
            pending: None,
            span,
        }
    }

    pub(crate) fn expr(&mut self, expression: Expression) -> Handle<Expression> {
        let pre_emitted = expression.needs_pre_emit();
        if pre_emitted {
            self.flush();
        }
        let handle = self.function.expressions.append(expression, self.span);
        if !pre_emitted {
            let first = self.pending.map_or(handle, |(first, _)| first);
            self.pending = Some((first, handle));
        }
        handle
    }

    pub(crate) fn u32(&mut self, value: u32) -> Handle<Expression> {
        self.expr(Expression::Literal(naga::Literal::U32(value)))
    }

    pub(crate) fn statement(&mut self, statement: Statement) {
        self.flush();
        self.block.push(statement, self.span);
    }

    /// Calls `function`; returns its result expression when `has_result`.
    pub(crate) fn call(
        &mut self,
        function: Handle<naga::Function>,
        arguments: Vec<Handle<Expression>>,
        has_result: bool,
    ) -> Option<Handle<Expression>> {
        self.flush();
        let result = has_result.then(|| {
            self.function
                .expressions
                .append(Expression::CallResult(function), self.span)
        });
        self.block.push(
            Statement::Call {
                function,
                arguments,
                result,
            },
            self.span,
        );
        result
    }

    /// `if condition { then }` with an empty else.
    pub(crate) fn if_then(&mut self, condition: Handle<Expression>, then: Statement) {
        let accept = Block::from_vec(vec![then]);
        self.statement(Statement::If {
            condition,
            accept,
            reject: Block::new(),
        });
    }

    /// `if condition { ... }` with an empty else, its body built by `fill`.
    pub(crate) fn if_with(
        &mut self,
        condition: Handle<Expression>,
        fill: impl FnOnce(&mut BlockBuilder),
    ) {
        self.flush();
        let mut inner = BlockBuilder::new(self.function, self.span);
        fill(&mut inner);
        let accept = inner.finish();
        self.statement(Statement::If {
            condition,
            accept,
            reject: Block::new(),
        });
    }

    pub(crate) fn finish(mut self) -> Block {
        self.flush();
        self.block
    }

    fn flush(&mut self) {
        if let Some((first, last)) = self.pending.take() {
            self.block.push(
                Statement::Emit(Range::new_from_bounds(first, last)),
                self.span,
            );
        }
    }
}
